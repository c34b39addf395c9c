// Package panicanchor panics in its own code on some schedules only, under tests that
// recover the panic or whose panic the package raises again (cmd/goweave's
// TestFuzzCommandAnchorsPanics).
package panicanchor

import "fmt"

// Table drops its entries when a reset request wins over a fill request.
type Table struct {
	entries map[string]int
	reset   chan struct{}
	fill    chan struct{}
}

func New() *Table {
	return &Table{entries: map[string]int{}, reset: make(chan struct{}, 1), fill: make(chan struct{}, 1)}
}

func (t *Table) RequestReset() { t.reset <- struct{}{} }
func (t *Table) RequestFill()  { t.fill <- struct{}{} }

// Apply handles one pending request: whichever the select takes.
func (t *Table) Apply() {
	select {
	case <-t.reset:
		t.entries = nil // the bug: a Put after a reset writes to a nil map
	case <-t.fill:
	}
}

// Put stores v under k.
func (t *Table) Put(k string, v int) {
	t.entries[k] = v // the panic's site
}

// Do calls f; a panic of f is raised again with label, as task runners do.
func Do(label string, f func()) {
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("%s: %v", label, r)) // the re-panic
		}
	}()
	f()
}
