// Package timing holds two schedule-dependent test failures: one that only a goroutine
// delayed past a test's time.Sleep produces (timing-dependent, not a bug of the package's
// synchronisation) and one an order violation produces (a bug, whatever the clock).
package timing

import "sync"

// Counter is incremented by a background worker.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Start increments c once, from a new goroutine.
func (c *Counter) Start() {
	go func() {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}()
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Loader loads a configuration in the background and announces it on Events.
type Loader struct {
	Events chan string
	mu     sync.Mutex
	cfg    map[string]string
}

// Start loads the configuration. The announcement comes before the load (the bug): a
// reader woken by it can read before the load.
func (l *Loader) Start() {
	go func() {
		l.Events <- "loaded"
		l.mu.Lock()
		l.cfg = map[string]string{"name": "goweave"}
		l.mu.Unlock()
	}()
}

// Get returns the configured value of key.
func (l *Loader) Get(key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg[key]
}
