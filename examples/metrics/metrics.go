// Package metrics collects samples from workers on a background goroutine.
package metrics

import "sync"

// Sample is one measurement.
type Sample struct {
	Worker int
	Items  int
}

// Collector sums samples sent to it until Stop.
type Collector struct {
	samples chan Sample
	done    chan struct{}
	mu      sync.Mutex
	total   int
}

// NewCollector starts a collector.
func NewCollector() *Collector {
	c := &Collector{samples: make(chan Sample, 16), done: make(chan struct{})}
	go c.collect()
	return c
}

func (c *Collector) collect() {
	for s := range c.samples {
		c.mu.Lock()
		c.total += s.Items
		c.mu.Unlock()
	}
	close(c.done)
}

// Record hands a sample to the collector.
func (c *Collector) Record(s Sample) {
	c.samples <- s // want "send-on-closed"
}

// Stop closes the collector and waits until every recorded sample is counted.
func (c *Collector) Stop() int {
	close(c.samples) // related "send-on-closed"
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Work processes items and reports how many it did.
//
// BUG: deferred calls run last-in first-out, so wg.Done runs before the deferred
// Record: whoever waits on wg may Stop the collector before this worker's sample is sent.
func Work(c *Collector, wg *sync.WaitGroup, worker, items int) {
	done := 0
	defer func() { c.Record(Sample{Worker: worker, Items: done}) }()
	defer wg.Done()
	for range items {
		done++
	}
}
