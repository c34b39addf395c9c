package replay

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Programs for the delay tests that check when a held operation goes on:
// after the operation it waits for took effect, and before the process exits.

// inbox keeps messages; peek forgets to unlock when the inbox is empty.
type inbox struct {
	mu   sync.Mutex
	msgs []string
}

func (b *inbox) put(m string) {
	b.mu.Lock() // @held.put
	b.msgs = append(b.msgs, m)
	b.mu.Unlock()
}

func (b *inbox) peek() (string, bool) {
	b.mu.Lock() // @held.peek
	if len(b.msgs) == 0 {
		return "", false // keeps b.mu locked
	}
	m := b.msgs[0]
	b.mu.Unlock()
	return m, true
}

// TestAbandonedLock: goroutine 1.1 puts a message at once, the test goroutine
// peeks once 1.1's Lock is held by the schedule's delay (run only with that
// delay: without it, it waits forever). peek finds the inbox empty and
// returns holding the mutex; 1.1 is released just before the test ends and
// blocks forever in its Lock.
func TestAbandonedLock(t *testing.T) {
	b := &inbox{}
	go b.put("hello")
	waitDelayedIn("(*inbox).put")
	b.peek()
}

// waitDelayedIn waits until a goroutine is parked in a schedule delay (the
// runtime shows it as a sleep) inside function fn. A condition, not a
// time: a sleep of a few milliseconds did not let 1.1 start on a loaded
// machine.
func waitDelayedIn(fn string) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "[sleep") && strings.Contains(g, fn) {
				return
			}
		}
		runtime.Gosched()
	}
}

// TestSlowOnce: goroutine 1.1 calls Do at once; 1.2 calls Do a little later
// with an f that computes for slowOnceWork. When 1.1's Do is delayed until
// 1.2's, 1.1 should go on only once 1.2's Do has returned.
func TestSlowOnce(t *testing.T) {
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		once.Do(func() {}) // @slow.first
	}()
	go func() {
		defer wg.Done()
		time.Sleep(lateStart)
		once.Do(func() { // @slow.second
			for start := time.Now(); time.Since(start) < slowOnceWork; {
			}
		})
	}()
	wg.Wait()
}

// slowOnceWork is longer than the old 1 ms bound of a released delay's wait.
const slowOnceWork = 5 * time.Millisecond
