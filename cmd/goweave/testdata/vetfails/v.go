// Package vetfails has an Example that go vet rejects (it names no identifier of the
// package), as old modules do that newer vets know more about: go test builds it only
// with -vet=off.
package vetfails

func Hello() string { return "hi" }
