package wgpool

import (
	"sync/atomic"
	"testing"
)

func TestPool(t *testing.T) {
	var p Pool
	var n atomic.Int32
	for range 3 {
		p.Go(func() { n.Add(1) }) // the test's Go
	}
	p.Wait() // the test's Wait
}
