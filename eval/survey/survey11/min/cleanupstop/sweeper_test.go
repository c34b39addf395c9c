package cleanupstop

import (
	"runtime"
	"testing"
	"time"
)

// The test's last use of h comes before it waits for h's loop: a GC during the wait runs
// the cleanup, the loop stops, and the wait never ends. Passes in plain go test when no GC
// comes in the 200 ms; under goweave, whose stuck check runs a GC, it is a deadlock.
func TestWaitAfterLastUse(t *testing.T) {
	done := make(chan struct{}, 1)
	h := New(func() {
		select {
		case done <- struct{}{}:
		default:
		}
	})
	h.Touch()
	<-done
}

// The same with a GC every 20 ms beside it, in plain go test: it hangs (reported here as a
// failure after 3 s instead of waiting forever).
func TestWaitAfterLastUseWithGC(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.GC()
			}
		}
	}()
	done := make(chan struct{}, 1)
	h := New(func() {
		select {
		case done <- struct{}{}:
		default:
		}
	})
	h.Touch()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("hung: the cleanup stopped the loop the test waits on")
	}
}
