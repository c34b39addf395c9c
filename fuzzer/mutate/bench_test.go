package mutate_test

import (
	"fmt"
	"github.com/goweave/goweave/analysis"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// syntheticTrace builds a trace of workers goroutines that, rounds times each, lock one of
// four mutexes, unlock it and send on a buffered channel, while the test goroutine receives
// every value (one receive per round through a select with a quit channel): about
// rounds*(4*workers+1) events.
func syntheticTrace(workers, rounds int) *trace.Trace {
	t := &trace.Trace{Meta: map[string]string{}}
	for line := 1; line <= 10; line++ {
		t.Positions = append(t.Positions, trace.Position{File: "/bench/x_test.go", Line: line})
	}
	stamp := uint64(0)
	add := func(e trace.Event) {
		stamp++
		e.Pre, e.Post, e.Index = stamp, stamp, len(t.Events)
		t.Events = append(t.Events, e)
	}
	const ch, quit = 100, 101
	add(trace.Event{Kind: trace.KindGoSpawn, G: 1, A: 2})
	add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: ch, Pos: 1, A: uint64(workers)})
	add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: quit, Pos: 1})
	for w := range workers {
		add(trace.Event{Kind: trace.KindGoSpawn, G: 2, A: uint64(10 + w), Pos: 2})
	}
	sent, got := uint64(0), uint64(0)
	for r := range rounds {
		for w := range workers {
			g, mu := uint64(10+w), uint64(1+(w+r)%4)
			add(trace.Event{Kind: trace.KindLock, G: g, Obj: mu, Pos: 3})
			add(trace.Event{Kind: trace.KindUnlock, G: g, Obj: mu, Pos: 4})
			sent++
			add(trace.Event{Kind: trace.KindChanSend, G: g, Obj: ch, Pos: 5, A: sent, B: sent - got, C: uint64(workers)})
		}
		for w := range workers {
			got++
			if w == 0 {
				add(trace.Event{Kind: trace.KindSelect, G: 2, Pos: 6, Aux: 2, A: 0, B: got, Flags: trace.FlagSuccess,
					Cases: []trace.Case{{Index: 0, Obj: ch}, {Index: 1, Obj: quit}}})
			} else {
				add(trace.Event{Kind: trace.KindChanRecv, G: 2, Obj: ch, Pos: 7, A: got, C: uint64(workers)})
			}
		}
	}
	return t
}

func benchRun(workers, rounds int) (*trace.Trace, mutate.HB) {
	t := syntheticTrace(workers, rounds)
	return t, analysis.Compute(t).Clocks()
}

func BenchmarkStrategies(b *testing.B) {
	for _, size := range []struct{ workers, rounds int }{{4, 50}, {8, 300}} {
		tr, hb := benchRun(size.workers, size.rounds)
		prepared := func() *mutate.Run {
			r := &mutate.Run{Trace: tr, HB: hb}
			r.Prepare()
			return r
		}
		suffix := fmt.Sprintf("/events=%d", len(tr.Events))
		b.Run("Name"+suffix, func(b *testing.B) {
			for b.Loop() {
				schedule.Name(tr)
			}
		})
		b.Run("Prepare"+suffix, func(b *testing.B) {
			for b.Loop() {
				prepared()
			}
		})
		b.Run("Signature"+suffix, func(b *testing.B) {
			r := prepared()
			for b.Loop() {
				mutate.Signature(r)
			}
		})
		for _, name := range mutate.Names {
			b.Run(name+suffix, func(b *testing.B) {
				r := prepared()
				n := 0
				for b.Loop() {
					s, _ := mutate.New(name, 1) // fresh state: every run is new and interesting
					n = len(s.Next(r))
				}
				b.ReportMetric(float64(n), "mutations")
			})
		}
	}
}
