package mutate

import (
	"reflect"
	"testing"

	"github.com/goweave/goweave/fuzzer/schedule"
)

func TestPartialHB(t *testing.T) {
	known := PartialHB(func(a, b int) (bool, bool) {
		switch {
		case a == 1 && b == 2:
			return true, true
		case a == 2 && b == 1:
			return false, true
		}
		return false, false // nothing else is known
	})
	if !known.HappensBefore(1, 2) || known.HappensBefore(2, 1) || known.Concurrent(1, 2) {
		t.Error("known pair misread")
	}
	if known.HappensBefore(3, 4) || !known.Concurrent(3, 4) || known.Concurrent(3, 3) {
		t.Error("unknown pairs must count as unordered")
	}
}

func TestPartnersByPosition(t *testing.T) {
	r := gfuzzRun(5)
	sel := -1
	for i, e := range r.Trace.Events {
		if e.Cases != nil {
			sel = i
		}
	}
	// Case 1 is the one this execution chose: left out; 7 is no case of it.
	got := PartnersByPosition(r.Trace, map[schedule.Pos][]int{pos(40): {0, 1, 7}})
	if !reflect.DeepEqual(got, map[int][]int{sel: {0}}) {
		t.Errorf("partners %v", got)
	}
}

func TestFlowUsesGivenPairs(t *testing.T) {
	r, e := flowRun()
	r.FlowPairs = []FlowPair{{e["send4"], e["send3"]}, {0, e["send3"]}} // event 0 is a spawn: dropped
	if got := FlowPairs(r); !reflect.DeepEqual(got, []FlowPair{{e["send4"], e["send3"]}}) {
		t.Errorf("pairs %v", got)
	}
}

func TestNew(t *testing.T) {
	for _, n := range Names {
		s, err := New(n, 1)
		if err != nil || s.Name() != n {
			t.Errorf("New(%q) = %v, %v", n, s, err)
		}
	}
	if _, err := New("random", 1); err == nil {
		t.Error("unknown strategy accepted")
	}
}

// TestConcurrentUse calls every strategy from several goroutines on one shared, prepared run
// (run with -race).
func TestConcurrentUse(t *testing.T) {
	r := gfuzzRun(5)
	r.Prepare()
	for _, name := range Names {
		s, _ := New(name, 1)
		done := make(chan int)
		for range 4 {
			go func() { done <- len(s.Next(r)) }()
		}
		total := 0
		for range 4 {
			total += <-done
		}
		if name == "gfuzz" && total != 1 {
			t.Errorf("gfuzz: %d mutations from 4 identical runs, want 1 (dedup)", total)
		}
	}
}
