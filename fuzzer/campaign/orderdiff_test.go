package campaign

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// The failing run locked the mutex first at line 58, the passing run at line 62: the two
// lines are the order difference; lines on other objects or in the same order are not.
func TestOrderDifferences(t *testing.T) {
	positions := []trace.Position{{File: "/m/w_test.go", Line: 58}, {File: "/m/w_test.go", Line: 62}, {File: "/m/w_test.go", Line: 70}, {File: "/m/w_test.go", Line: 71}}
	run := func(events ...trace.Event) *trace.Trace { return &trace.Trace{Positions: positions, Events: events} }
	const mu, ch = 0x10, 0x20
	passing := run(
		trace.Event{Kind: trace.KindLock, Obj: mu, Pos: 2},
		trace.Event{Kind: trace.KindLock, Obj: mu, Pos: 1},
		trace.Event{Kind: trace.KindChanSend, Obj: ch, Pos: 3},
		trace.Event{Kind: trace.KindChanRecv, Obj: ch, Pos: 4},
	)
	failing := run(
		trace.Event{Kind: trace.KindChanSend, Obj: ch + 1, Pos: 3}, // another address, same lines, same order
		trace.Event{Kind: trace.KindChanRecv, Obj: ch + 1, Pos: 4},
		trace.Event{Kind: trace.KindLock, Obj: mu + 1, Pos: 1},
		trace.Event{Kind: trace.KindLock, Obj: mu + 1, Pos: 2},
	)
	got := orderDifferences(orderOf(failing), orderOf(passing), 2)
	if len(got) != 2 || got[0].Line != 58 || got[1].Line != 62 || !strings.HasPrefix(got[0].Role, "ran before w_test.go:62 here") {
		t.Errorf("differences %+v, want line 58 then 62", got)
	}
	// The worker panicked before the test goroutine locked at all.
	panicked := run(trace.Event{Kind: trace.KindLock, Obj: mu + 2, Pos: 1})
	got = orderDifferences(orderOf(panicked), orderOf(passing), 2)
	if len(got) != 2 || got[0].Line != 58 || got[1].Line != 62 || !strings.HasPrefix(got[1].Role, "had not run yet here") {
		t.Errorf("differences %+v, want line 58, and 62 that had not run yet", got)
	}
	if got := orderDifferences(orderOf(passing), orderOf(passing), 2); len(got) != 0 {
		t.Errorf("a run against itself: %+v", got)
	}
}

// A receive that arrived before the send it met (the failing run) or after it (the passing
// run) is no order difference: the two communicate either way.
func TestOrderDifferencesSkipWhichSideOfAChannelCameFirst(t *testing.T) {
	positions := []trace.Position{{File: "/m/cache.go", Line: 61}, {File: "/m/cache.go", Line: 244}}
	run := func(events ...trace.Event) *trace.Trace { return &trace.Trace{Positions: positions, Events: events} }
	const ch = 0x20
	passing := run(trace.Event{Kind: trace.KindChanSend, Obj: ch, Pos: 2}, trace.Event{Kind: trace.KindChanRecv, Obj: ch, Pos: 1})
	failing := run(trace.Event{Kind: trace.KindChanRecv, Obj: ch + 1, Pos: 1}, trace.Event{Kind: trace.KindChanSend, Obj: ch + 1, Pos: 2})
	if got := orderDifferences(orderOf(failing), orderOf(passing), 2); len(got) != 0 {
		t.Errorf("differences %+v, want none", got)
	}
}
