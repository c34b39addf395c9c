package fuzzer

import (
	"slices"
	"testing"
)

// Queued requests run strategy by strategy in turn, each strategy's in the order it
// proposed them, so a strategy with many proposals does not delay another's first one;
// flow takes every other turn.
func TestTakeRequestTakesStrategiesInTurn(t *testing.T) {
	ts := &testState{}
	for i, s := range []string{"gopie", "gopie", "gopie", "prefix", "gopie", "flow", "flow", "gfuzz"} {
		ts.queue = append(ts.queue, &RunRequest{Strategy: s, Key: s + string(rune('0'+i))})
	}
	var got []string
	for len(ts.queue) > 0 {
		got = append(got, ts.takeRequest().Key)
	}
	want := []string{"flow5", "gfuzz7", "flow6", "gopie0", "prefix3", "gopie1", "gopie2", "gopie4"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// A strategy proposing later joins the rotation after the one that ran last.
	ts.turn, ts.favouredLast = "gopie", true
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "f"}, {Strategy: "gfuzz", Key: "g"}, {Strategy: "prefix", Key: "p"}}
	for _, want := range []string{"p", "f", "g"} {
		if r := ts.takeRequest(); r.Key != want {
			t.Errorf("took %s, want %s", r.Key, want)
		}
	}
	// Only the favoured strategy left: it runs on.
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "f1"}, {Strategy: "flow", Key: "f2"}}
	if a, b := ts.takeRequest().Key, ts.takeRequest().Key; a != "f1" || b != "f2" {
		t.Errorf("took %s, %s; want f1, f2", a, b)
	}
}
