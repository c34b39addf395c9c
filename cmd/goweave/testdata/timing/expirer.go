package timing

import (
	"sync"
	"time"
)

// Expirer holds one entry that a background loop removes once its TTL has passed, as a
// cache's expiration loop does: the loop waits with one timer, reset to the entry's
// remaining TTL each round.
type Expirer struct {
	mu      sync.Mutex
	until   time.Time // zero: no entry
	changed chan struct{}
	done    chan struct{}
}

// NewExpirer starts the loop; Close stops it.
func NewExpirer() *Expirer {
	e := &Expirer{changed: make(chan struct{}, 1), done: make(chan struct{})}
	go e.loop()
	return e
}

func (e *Expirer) loop() {
	t := time.NewTimer(time.Hour)
	for {
		e.mu.Lock()
		d := time.Hour
		if !e.until.IsZero() {
			d = time.Until(e.until)
		}
		e.mu.Unlock()
		t.Reset(d) // the TTL's clock
		select {
		case <-t.C:
			e.mu.Lock()
			if !e.until.IsZero() && !time.Now().Before(e.until) {
				e.until = time.Time{}
			}
			e.mu.Unlock()
		case <-e.changed:
			t.Stop()
		case <-e.done:
			t.Stop()
			return
		}
	}
}

// Set sets the entry to expire after ttl.
func (e *Expirer) Set(ttl time.Duration) {
	e.mu.Lock()
	e.until = time.Now().Add(ttl)
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// Has reports whether the entry is there.
func (e *Expirer) Has() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.until.IsZero()
}

// Close stops the loop.
func (e *Expirer) Close() { close(e.done) }
