// Package unplacedrace reads a dependency's counter that the dependency's goroutine writes
// (testdata/racedep): the race detector fails every run, and the race has no frame of this
// module on its writing side.
package unplacedrace

import "goweave.test/racedep"

// Busy reports whether the meter counted anything.
func Busy(m *racedep.Meter) bool { return m.Count() > 0 }
