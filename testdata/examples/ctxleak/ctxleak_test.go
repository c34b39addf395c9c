// A poller goroutine loops on a ticker until its context is cancelled. The
// error path of start drops the poller and its cancel function, so the poller is never
// stopped: after the test it still wakes up on every tick, forever. No
// channel of it is ever unreachable (the ticker's timer keeps it alive), so
// only the trace shows it: its select was only ever woken by the ticker,
// and the context's Done channel was never closed.
package ctxleak

import (
	"context"
	"errors"
	"testing"
	"time"
)

type poller struct {
	ticks chan int
	stop  context.CancelFunc
}

func (p *poller) loop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	n := 0
	for {
		select { // want "leak-select"
		case <-ctx.Done():
			return
		case <-t.C:
			n++
			select {
			case p.ticks <- n:
			default:
			}
		}
	}
}

// start returns a running poller; its owner stops it with p.stop().
func start(check func() error) (*poller, error) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &poller{ticks: make(chan int, 1), stop: cancel}
	go p.loop(ctx, time.Millisecond)
	<-p.ticks
	if err := check(); err != nil {
		return nil, err // the poller, and with it the only way to stop it, is dropped
	}
	return p, nil
}

func TestStartFails(t *testing.T) {
	if _, err := start(func() error { return errors.New("config missing") }); err == nil {
		t.Fatal("start succeeded")
	}
}
