// A batcher flushes what it buffered when its flush timer fires, and the
// flush closes the output: the batch was sent before time.AfterFunc set the
// timer, so before the function the timer starts can close the channel (the
// timer's set happens before its fire). Reset by the owner moves the deadline
// without losing that order. Nothing to report.
package afterfunc

import (
	"testing"
	"time"
)

type batcher struct {
	out   chan []int
	done  chan struct{}
	timer *time.Timer
}

func start(batch []int, after time.Duration) *batcher {
	b := &batcher{out: make(chan []int, 1), done: make(chan struct{})}
	b.out <- batch
	b.timer = time.AfterFunc(after, func() {
		close(b.out)
		close(b.done)
	})
	return b
}

func TestFlushOnTimer(t *testing.T) {
	b := start([]int{1, 2, 3}, time.Hour)
	b.timer.Reset(time.Millisecond)
	<-b.done
	n := 0
	for batch := range b.out {
		n += len(batch)
	}
	if n != 3 {
		t.Fatalf("flushed %d values, want 3", n)
	}
}
