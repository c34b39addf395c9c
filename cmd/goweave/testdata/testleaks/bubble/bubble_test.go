package bubble

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
)

// expectBlock asserts that f blocks forever: synctest.Test panics with "deadlock: ..." when
// every goroutine of its bubble is durably blocked.
func expectBlock(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "deadlock:") {
			t.Errorf("expected a deadlock, got %v", r)
		}
	}()
	synctest.Test(t, func(t *testing.T) { f() })
}

func TestForEachNil(t *testing.T) {
	expectBlock(t, func() { ForEach(nil, 2, func(int) {}) })
}

// TestForEachNilNoBubble: the same blocking outside a bubble is a leak the test made.
func TestForEachNilNoBubble(t *testing.T) {
	go ForEach(nil, 1, func(int) {})
	waitBlocked(t, "chan receive (nil chan)", 1)
}

// waitBlocked waits until n goroutines are blocked with the wait reason.
func waitBlocked(t *testing.T, reason string, n int) {
	buf := make([]byte, 1<<20)
	for {
		s := string(buf[:runtime.Stack(buf, true)])
		if strings.Count(s, "["+reason) >= n {
			return
		}
		runtime.Gosched()
	}
}
