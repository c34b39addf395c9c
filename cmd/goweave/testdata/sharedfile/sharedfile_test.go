// Package sharedfile reproduces survey 9's false findings in tidwall/buntdb: every test
// opens one fixed file in the package directory (the working directory of go test), removes
// it first and at its end, as buntdb's testOpen/testClose do with "data.db". go test runs one
// process per package, so the tests always pass; a campaign that runs two processes of the
// package's test binary at once (goweave fuzz -p 2) lets one process remove or grow the file
// the other is using. The failures name no OS collision ("no such file or directory",
// a wrong size), and no schedule of the program causes them: a failure of a run beside
// another process of the package counts only once a run of the package fails alone
// (fuzzer/campaign/overlap.go), which here none does.
package sharedfile

import (
	"os"
	"sync"
	"testing"
	"time"
)

const path = "state.db"

// useFile writes n records to the fixed file and checks its size, as a store's test does.
func useFile(t *testing.T, n int) {
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { // a background writer, so the campaign has a schedule to vary
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if _, err := f.WriteString("record\n"); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(2 * time.Millisecond) // the file stays in use a while, as a test's store does
	}
	wg.Wait()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(n * len("record\n")); fi.Size() != want {
		t.Fatalf("expected %d bytes, got %d", want, fi.Size())
	}
}

func TestStoreA(t *testing.T) { useFile(t, 10) }

func TestStoreB(t *testing.T) { useFile(t, 20) }
