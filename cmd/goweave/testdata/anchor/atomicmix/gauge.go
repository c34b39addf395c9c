// Package atomicmix has a gauge set atomically and reset by a plain write of the whole
// struct: the plain write races with the atomic Store of the same word.
package atomicmix

import "sync/atomic"

type Gauge struct{ v atomic.Int64 }

func (g *Gauge) Set(x int64) { g.v.Store(x) } // the atomic Store

func (g *Gauge) Reset() { *g = Gauge{} } // the plain write
