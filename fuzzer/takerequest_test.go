package fuzzer

import (
	"slices"
	"testing"
)

// Queued requests run strategy by strategy in turn, each strategy's in the order it
// proposed them, so a strategy with many proposals does not delay another's first one.
func TestTakeRequestTakesStrategiesInTurn(t *testing.T) {
	ts := &testState{}
	for i, s := range []string{"gopie", "gopie", "gopie", "prefix", "gopie", "flow"} {
		ts.queue = append(ts.queue, &RunRequest{Strategy: s, Key: s + string(rune('0'+i))})
	}
	var got []string
	for len(ts.queue) > 0 {
		got = append(got, ts.takeRequest().Key)
	}
	want := []string{"flow5", "gopie0", "prefix3", "gopie1", "gopie2", "gopie4"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	// A strategy proposing later joins the rotation after the one that ran last.
	ts.turn = "gopie"
	ts.queue = []*RunRequest{{Strategy: "flow", Key: "f"}, {Strategy: "gfuzz", Key: "g"}, {Strategy: "prefix", Key: "p"}}
	if r := ts.takeRequest(); r.Key != "p" {
		t.Errorf("after gopie took %s, want prefix's", r.Key)
	}
	if r := ts.takeRequest(); r.Key != "f" {
		t.Errorf("after prefix took %s, want flow's (wrapping around)", r.Key)
	}
}
