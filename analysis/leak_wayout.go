package analysis

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// wayOutRule is the rule markWayOut applies, shown in the receive leaks' docs.
const wayOutRule = `A goroutine blocked receiving from a channel (or in a select whose receive cases wait on
it) that the package's source closes somewhere names that close and where the channel was
made: "its way out, close(b.input) at batcher.go:51 in (*Batcher).Close, never ran in this
run". The close is found by reading the package: a close(x) whose x is the variable or
field the make stored the channel in (static matching on that name; a close through a copy
of the channel is not found). When the test made the object (the make ran on the test's
goroutine, and the test's function, or a helper of its files, calls the function that made
it, or a wrapper returning the object the close belongs to; a constructor that makes it for
an object of its own owns it, and its close is that object's job) and the
channel the goroutine receives from has such an exported close that never ran, the leak is the
test's (test-only, a warning): it made the object and never closed it. A select leaves by any
of its cases: one receive case waiting for such a close of an object the test made is
enough (its other cases may wait on a context's Done or a send), and names the way out.
A goroutine of the package receiving from a channel the test made (in a _test.go file),
that nothing closed and only the test's code sent on, waits for the test, its producer, to
close it: test-only too. So is a leak whose close would be run by a goroutine started at
the function literal the close is in, itself a test-only leak blocked in that literal
before the close (a forwarder ranging over the test's channel): the chain ends at the test.`

// wayOut is what a leak waits for: a close the source has and the run never ran.
type wayOut struct {
	close    closeSite
	made     int32  // the channel's make
	makeFunc string // the function the make is in
	ran      bool   // the close statement ran in this run, for another channel
	testCall string // the test's call of the maker, when the test made the object
	testChan bool   // the channel was made in a _test.go file (no close to name)
	closer   int32  // > 0: the test-only leak, blocked before the close in the goroutine that would run it, plus 1
}

// markCloserLeaked marks test-only the leaks whose close would be run by a goroutine that is
// itself a test-only leak, blocked in the same function literal before the close (a
// forwarding goroutine, go func() { for v := range in {...}; close(out) }(), ranging over
// the test's channel): the chain ends at the test. Repeated until nothing changes.
func (r *Result) markCloserLeaked(leaks []leak) {
	evs := r.Trace.Events
	for changed := true; changed; {
		changed = false
		for k := range leaks {
			l := &leaks[k]
			w := l.wayOut
			if l.testOnly || w == nil || w.testChan || w.close.LitFrom == 0 || l.dropped > 0 {
				continue
			}
			for j := range leaks {
				o := &leaks[j]
				if j == k || !o.testOnly {
					continue
				}
				p := r.Trace.Position(evs[o.ev].Pos)
				s := r.Goroutines[r.gOf[o.ev]].Spawn
				if p.File != w.close.File || p.Line < w.close.LitFrom || p.Line >= w.close.Line || s < 0 ||
					r.Trace.Position(evs[s].Pos).File != w.close.File || r.Trace.Position(evs[s].Pos).Line != w.close.LitFrom {
					continue
				}
				l.testOnly, l.testMade, w.closer = true, true, o.ev+1
				changed = true
				break
			}
		}
	}
}

// testOnlyChannel reports whether channel o, made by the test, was never closed and only
// the test's code sent on it: the package received from the test's channel, and its
// producer, the test, never closed it.
func (r *Result) testOnlyChannel(o uint64) bool {
	for i := range r.Trace.Events {
		ev := &r.Trace.Events[i]
		switch {
		case ev.Kind == trace.KindChanClose && ev.Obj == o:
			return false
		case ev.Kind == trace.KindChanSend && ev.Obj == o:
			if !strings.HasSuffix(r.Trace.Position(ev.Pos).File, "_test.go") {
				return false
			}
		case ev.Kind == trace.KindSelect:
			for _, c := range ev.Cases {
				if c.Send && c.Obj == o && !strings.HasSuffix(r.Trace.Position(ev.Pos).File, "_test.go") {
					return false
				}
			}
		}
	}
	return true
}

// markWayOut names the close each receive leak waits for, and marks test-only the leaks of
// objects the test made and never closed (wayOutRule).
func (r *Result) markWayOut(leaks []leak) {
	evs := r.Trace.Events
	test, testKnown := r.testGoroutine()
	closedAt := map[uint32]bool{}
	for k := range evs {
		if evs[k].Kind == trace.KindChanClose {
			closedAt[evs[k].Pos] = true
		}
	}
	ranAt := func(c closeSite) bool {
		for pos := range closedAt {
			if p := r.Trace.Position(pos); p.File == c.File && p.Line == c.Line {
				return true
			}
		}
		return false
	}
	testChans := map[uint64]bool{} // testOnlyChannel, memoized: many leaks may wait on one
	inTestFile := func(ev *trace.Event) bool {
		return strings.HasSuffix(r.Trace.Position(ev.Pos).File, "_test.go")
	}
	for k := range leaks {
		l := &leaks[k]
		ev := &evs[l.ev]
		objs := l.receivesFrom(ev)
		// A receive waits for its one channel; a select leaves by any of its cases, so one
		// case whose close the test never ran is the way out the test withheld, whatever the
		// other cases wait on (a context's Done, a send).
		anyCase := ev.Kind == trace.KindSelect
		testMade, named := !anyCase, 0
		for _, o := range objs {
			m, ok := r.makeEvent(o)
			if !ok || evs[m].Pos == 0 {
				continue // a timer's or another package's channel: no make to read
			}
			p := r.Trace.Position(evs[m].Pos)
			if strings.HasSuffix(p.File, "_test.go") && !inTestFile(ev) {
				// the test's own channel, handed to the package: only the test can close it
				w := &wayOut{made: m, testChan: true}
				mine, seen := testChans[o]
				if !seen {
					mine = r.testOnlyChannel(o)
					testChans[o] = mine
				}
				switch {
				case !anyCase && !mine:
					testMade = false
				case anyCase && mine && !testMade:
					testMade = true
					l.wayOut = w
				}
				if l.wayOut == nil {
					l.wayOut = w
				}
				named++
				continue
			}
			facts, ok := closesOf(p.File, p.Line, r.makeOrdinal(m))
			if !ok || len(facts.closes) == 0 {
				if !anyCase {
					testMade = false
				}
				continue
			}
			w := &wayOut{close: facts.closes[0], made: m, makeFunc: facts.makeFunc}
			for _, c := range facts.closes {
				if c.Exported && !w.close.Exported {
					w.close = c
				}
			}
			w.ran = ranAt(w.close)
			g := r.gOf[m]
			byTest := testKnown && g == test || g >= 0 && r.spawnedInTest(g)
			call := facts.testCall(r.opts.Test)
			mine := byTest && call != "" && w.close.Exported
			if mine {
				w.testCall = call
			}
			switch {
			case !anyCase && !mine:
				testMade = false
			case anyCase && mine && !testMade:
				testMade = true
				l.wayOut = w // the case the test withheld names the way out
			}
			if l.wayOut == nil {
				l.wayOut = w
			}
			named++
		}
		if named > 0 && testMade && !l.testOnly {
			l.testOnly, l.testMade = true, true
		}
	}
	r.markLostSignal(leaks)
	r.markCloserLeaked(leaks)
}

// spawnedInTest reports whether goroutine g was started by a go statement in a _test.go file.
func (r *Result) spawnedInTest(g int32) bool {
	s := r.Goroutines[g].Spawn
	return s >= 0 && strings.HasSuffix(r.Trace.Position(r.Trace.Events[s].Pos).File, "_test.go")
}

// wayOutText is the message part naming a leak's way out.
func (r *Result) wayOutText(w *wayOut) string {
	if w.testChan {
		return fmt.Sprintf("; it waits for the channel the test made at %s, which nothing closed", r.at(w.made))
	}
	when := "never ran in this run"
	if w.ran {
		when = "did not run for this channel (it ran for another)"
	}
	s := fmt.Sprintf("; its way out, %s at %s:%d in %s, %s; the channel was made at %s in %s",
		w.close.Text, filepath.Base(w.close.File), w.close.Line, w.close.Func, when, r.at(w.made), w.makeFunc)
	if w.close.Text == "" {
		s = strings.Replace(s, "its way out,  at", "its way out, the close at", 1)
	}
	return s
}

// makeOrdinal is which make call of its line event m is: a line can make several channels
// (a struct literal with two channel fields), evaluated left to right. It counts the makes
// on that line the goroutine recorded just before m, back to the previous event elsewhere.
// The line, not the position: a trace that records columns gives each make its own
// position, and counting equal positions named the first make's close for every one.
func (r *Result) makeOrdinal(m int32) int {
	evs := r.Trace.Events
	at := r.Trace.Position(evs[m].Pos)
	k := 0
	for j := m - 1; j >= 0; j-- {
		if r.gOf[j] != r.gOf[m] {
			continue
		}
		if evs[j].Kind != trace.KindChanMake {
			break
		}
		if p := r.Trace.Position(evs[j].Pos); p.File != at.File || p.Line != at.Line {
			break
		}
		k++
	}
	return k
}

// receivesFrom names the channels leak l, blocked at ev, waits to receive from: a receive's
// one channel, or a select's receive cases (a ticker's select waits on time, not on them).
func (l *leak) receivesFrom(ev *trace.Event) []uint64 {
	var objs []uint64
	switch {
	case ev.Kind == trace.KindChanRecv && l.kind == "leak-chan":
		objs = []uint64{ev.Obj}
	case ev.Kind == trace.KindSelect && l.ticker == 0:
		for _, c := range ev.Cases {
			if !c.Send {
				objs = append(objs, c.Obj)
			}
		}
	}
	return objs
}
