// Package onein3 is a test that deadlocks in one run in three, by a coin of its own: the
// runs per time budget of a campaign on it show what a stuck run costs (BENCHMARKS.md,
// .ci/bench-stuck.sh). Two goroutines take two mutexes in opposite orders; when the coin
// says so, they hand off so that each holds one and waits for the other.
package onein3

import (
	"math/rand/v2"
	"sync"
	"testing"
)

func TestDeadlocksOneInThree(t *testing.T) {
	var first, second sync.Mutex
	interleave := rand.IntN(3) == 0
	holding := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		first.Lock()
		if interleave {
			holding <- struct{}{} // first is held
			<-holding             // second is held: both wait now
		}
		second.Lock()
		second.Unlock()
		first.Unlock()
	}()
	if interleave {
		<-holding
		second.Lock()
		holding <- struct{}{}
		first.Lock()
		first.Unlock()
		second.Unlock()
	}
	<-done
}
