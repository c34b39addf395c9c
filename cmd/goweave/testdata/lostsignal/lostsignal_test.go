package lostsignal

import (
	"runtime"
	"strings"
	"testing"
)

// TestSignalDropped adds a handler before the watcher runs: the hub's signal is dropped and
// the watcher waits for it forever (the package's lost signal, whatever the test left open).
func TestSignalDropped(t *testing.T) {
	h := NewHub()
	h.Add()
	h.Run()
	waitBlocked(t, "select", 1)
}

// TestHubNeverClosed runs a hub without a handler and never closes it (the test's leak).
func TestHubNeverClosed(t *testing.T) {
	h := NewHub()
	h.Run()
	waitBlocked(t, "select", 1)
}

// TestRouterNeverClosed never closes its router: its handler waits for the Close, and the
// watcher for the handler (both the test's leaks).
func TestRouterNeverClosed(t *testing.T) {
	r := NewRouter()
	r.Run()
	waitBlocked(t, "sync.WaitGroup.Wait", 1)
	waitBlocked(t, "chan receive", 1)
}

// waitBlocked waits until n goroutines of the package are blocked with the wait reason.
func waitBlocked(t *testing.T, reason string, n int) {
	buf := make([]byte, 1<<20)
	for {
		k := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "["+reason+"]") && strings.Contains(g, "lostsignal.") {
				k++
			}
		}
		if k >= n {
			return
		}
		runtime.Gosched()
	}
}
