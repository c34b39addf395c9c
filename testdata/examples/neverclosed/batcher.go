// Package neverclosed has a type whose New starts a goroutine that runs until Close closes
// its input. Its test never calls Close: the goroutine leaks, true, but the package is not
// at fault; the test made the batcher and never closed it (test-only, a warning, naming
// the Close that never ran).
package neverclosed

// Batcher groups the values added to it into batches of a fixed size.
type Batcher struct {
	input   chan int
	batches chan []int
}

// New returns a batcher of batches of size values; Close stops it.
func New(size int) *Batcher {
	b := &Batcher{input: make(chan int), batches: make(chan []int, 16)}
	go b.run(size)
	return b
}

func (b *Batcher) run(size int) {
	var batch []int
	for v := range b.input { // want "leak-chan"
		batch = append(batch, v)
		if len(batch) == size {
			b.batches <- batch
			batch = nil
		}
	}
	if len(batch) > 0 {
		b.batches <- batch
	}
	close(b.batches)
}

// Add adds a value to the current batch.
func (b *Batcher) Add(v int) { b.input <- v }

// Batches delivers the full batches, and the last partial one after Close.
func (b *Batcher) Batches() <-chan []int { return b.batches }

// Close flushes the last batch and stops the batcher.
func (b *Batcher) Close() { close(b.input) }
