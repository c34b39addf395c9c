package events

import (
	"sync"
	"testing"
)

// TestTestingUses uses its T from its own goroutine, from a worker it waits for, through
// the testing.TB interface and in a subtest: each use is a TestUse at its line, each test's
// end a TestEnd at its function's first line.
func TestTestingUses(t *testing.T) { // @tuse.end
	t.Log("own") // @tuse.own
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t.Logf("worker %d", 1) // @tuse.worker
	}()
	wg.Wait()
	var tb testing.TB = t
	tb.Log("through the interface")    // @tuse.iface
	t.Run("sub", func(st *testing.T) { // @tuse.subend
		st.Skip("skipped") // @tuse.subskip
	})
}
