package replay

import (
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Every blocked goroutine gets a place: where it blocked in a recorded operation, else the
// testing package's main goroutine is named as such, else its last recorded operation or
// its go statement.
func TestBlockedGoroutinesHavePlaces(t *testing.T) {
	tr := &trace.Trace{
		Positions: []trace.Position{{File: "/m/p/p_test.go", Line: 20}, {File: "/m/p/p_test.go", Line: 12}, {File: "/m/p/p.go", Line: 7}},
		Events: []trace.Event{
			{Kind: trace.KindGoSpawn, G: 5, A: 6, Pos: 2, Pre: 1, Post: 1},
			{Kind: trace.KindGoSpawn, G: 5, A: 7, Pos: 2, Pre: 2, Post: 2},
			{Kind: trace.KindChanRecv, G: 5, Pos: 1, Pre: 3},          // blocked
			{Kind: trace.KindChanSend, G: 6, Pos: 3, Pre: 4, Post: 5}, // completed
		},
		Goroutines: []trace.Goroutine{
			{ID: 1, Status: 4, WaitReason: "chan receive", LastEvent: -1},
			{ID: 2, Status: 2, LastEvent: -1}, // running: not listed
			{ID: 5, Status: 4, WaitReason: "chan receive", LastEvent: 2},
			{ID: 6, Status: 4, WaitReason: "sleep", LastEvent: 3},
			{ID: 7, Status: 10, WaitReason: "select", LastEvent: -1},
			{ID: 8, Status: 4, WaitReason: "GC worker (idle)", LastEvent: -1},
		},
	}
	got := blockedGoroutines(tr, "/m/p")
	want := []string{
		"goroutine 1 [chan receive] in the testing package (the main goroutine, waiting for the test to finish)",
		"goroutine 5 [chan receive] at p_test.go:20",
		"goroutine 6 [sleep] outside the recorded operations, after its last one at p.go:7",
		"goroutine 7 [select] outside the recorded operations, started at p_test.go:12",
		"goroutine 8 [GC worker (idle)] outside the recorded code",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
