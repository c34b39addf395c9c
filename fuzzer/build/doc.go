// Package build owns the first step of a campaign: resolving package patterns (go list),
// building each package's test binary once with the goweave runtime (go test -c -overlay)
// and listing the tests it selects. A package that does not compile is an *Error.
package build
