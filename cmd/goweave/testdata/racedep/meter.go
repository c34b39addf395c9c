// Package racedep is a dependency whose own goroutine writes a counter that its accessor
// reads without a lock: a race with no frame of the calling module on its writing side.
package racedep

// Meter counts in a goroutine of its own.
type Meter struct{ n int }

// Start starts the meter's goroutine.
func Start() *Meter {
	m := &Meter{}
	go m.loop()
	return m
}

func (m *Meter) loop() {
	for i := 0; i < 1000; i++ {
		m.n++
	}
}

// Count reads the counter with no lock.
func (m *Meter) Count() int { return m.n }
