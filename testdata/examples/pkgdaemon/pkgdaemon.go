// A package keeps a default cache whose janitor goroutine, started by a
// package-level variable, sweeps expired entries on a ticker until Close
// cancels its context. The janitor outlives every test by design and Close
// (its cancel is kept in the package) can still stop it: it is the package's
// daemon, not a goroutine a test leaked, and nothing is reported.
package pkgdaemon

import (
	"context"
	"sync"
	"time"
)

type cache struct {
	mu      sync.Mutex
	entries map[string]time.Time
	swept   chan struct{}
	cancel  context.CancelFunc
}

var defaultCache = newCache(time.Millisecond)

func newCache(every time.Duration) *cache {
	ctx, cancel := context.WithCancel(context.Background())
	c := &cache{entries: map[string]time.Time{}, swept: make(chan struct{}, 1), cancel: cancel}
	go c.janitor(ctx, every)
	return c
}

func (c *cache) janitor(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			c.mu.Lock()
			for k, exp := range c.entries {
				if now.After(exp) {
					delete(c.entries, k)
				}
			}
			c.mu.Unlock()
			select {
			case c.swept <- struct{}{}:
			default:
			}
		}
	}
}

// Put stores key in the default cache for ttl.
func Put(key string, ttl time.Duration) {
	defaultCache.mu.Lock()
	defaultCache.entries[key] = time.Now().Add(ttl)
	defaultCache.mu.Unlock()
}

// Len is the number of entries in the default cache.
func Len() int {
	defaultCache.mu.Lock()
	defer defaultCache.mu.Unlock()
	return len(defaultCache.entries)
}

// Close stops the default cache's janitor.
func Close() { defaultCache.cancel() }
