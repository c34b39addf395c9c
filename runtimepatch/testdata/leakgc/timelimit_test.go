package leakgc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestTimeLimitHang never returns, as a hung test does: the test goroutine waits on a
// channel nothing references but itself (leaked), another goroutine on a channel a
// sleeping goroutine still holds (lingering: the sleeper could send), and the sleeper keeps
// the runtime from calling it a deadlock. READY is printed once everything has blocked;
// then the harness sends the time limit's signal. Not a TestLeak*/TestLinger* test: it
// only ends by a signal.
func TestTimeLimitHang(t *testing.T) {
	held := make(chan int)
	go func() {
		for {
			time.Sleep(10 * time.Millisecond)
			if wakeLingering { // never set: the sleeper still holds held, so it could send
				held <- 1
			}
		}
	}()
	go func() {
		<-held // @timelimit.linger
	}()
	go func() {
		waitBlocked(2) // the test goroutine and the lingering receiver
		fmt.Println("READY")
	}()
	results := make(chan int)
	<-results // @timelimit.leak
}

var wakeLingering bool

// waitBlocked waits until n goroutines of TestTimeLimitHang are in a channel receive: a
// condition, not a time.
func waitBlocked(n int) {
	buf := make([]byte, 1<<20)
	for {
		blocked := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, " [chan receive") && strings.Contains(g, "TestTimeLimitHang") {
				blocked++
			}
		}
		if blocked >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
