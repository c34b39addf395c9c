package unplacedrace

import (
	"testing"

	"goweave.test/racedep"
)

func TestBusy(t *testing.T) {
	m := racedep.Start()
	for i := 0; i < 100; i++ {
		_ = Busy(m)
	}
}
