// The same poller as ctxleak, but start defers the cancel: every path stops
// the poller. Nothing to report.
package ctxcancel

import (
	"context"
	"errors"
	"testing"
	"time"
)

type poller struct {
	ticks chan int
	done  chan struct{}
}

func (p *poller) loop(ctx context.Context, every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	n := 0
	for {
		select {
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

func start(check func() error) (*poller, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &poller{ticks: make(chan int, 1), done: make(chan struct{})}
	go p.loop(ctx, time.Millisecond)
	<-p.ticks
	if err := check(); err != nil {
		return p, err
	}
	return p, nil
}

func TestStartFails(t *testing.T) {
	p, err := start(func() error { return errors.New("config missing") })
	if err == nil {
		t.Fatal("start succeeded")
	}
	<-p.done
}
