// Package cleanupstop: a handle whose background loop is stopped by a cleanup once the
// handle is unreachable (survey 11, the shape of otter's TestCache_SetExpiresAfter).
package cleanupstop

import (
	"runtime"
	"time"
)

type loop struct {
	stop   chan struct{}
	onTick func()
}

// Handle runs onTick on every tick of a 200 ms ticker until it is garbage.
type Handle struct{ l *loop }

func New(onTick func()) *Handle {
	l := &loop{stop: make(chan struct{}, 1), onTick: onTick}
	go l.run()
	h := &Handle{l: l}
	// the loop holds l, not h: once h is unreachable, stop the loop
	runtime.AddCleanup(h, func(l *loop) { l.stop <- struct{}{} }, l)
	return h
}

func (h *Handle) Touch() {}

func (l *loop) run() {
	tick := time.Tick(200 * time.Millisecond)
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			l.onTick()
		}
	}
}
