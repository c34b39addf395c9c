package leakgc

import (
	"fmt"
	"os"
	"runtime/pprof"
	"testing"
)

// TestMain waits for the test's goroutine to end after the tests ran, then
// writes the GC leak detector's profile (debug=1: stacks with function names)
// to $LEAKGC_PROFILE when asked. Without
// GOEXPERIMENT=goroutineleakprofile the profile does not exist: the file then
// holds the single line "no goroutineleak profile".
func TestMain(m *testing.M) {
	code := m.Run()
	// Let the test's goroutine end before the exit, so that the trace shows
	// it ended rather than still running: a live goroutine that made a
	// channel could still unblock its waiters, as far as the trace can tell.
	settle()
	if out := os.Getenv("LEAKGC_PROFILE"); out != "" {
		if err := writeLeakProfile(out); err != nil {
			fmt.Fprintln(os.Stderr, "leakgc:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func writeLeakProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		_, err = fmt.Fprintln(f, "no goroutineleak profile")
	} else {
		err = p.WriteTo(f, 1)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
