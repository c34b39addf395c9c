package mutate

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// gfuzzRun: the test goroutine makes an unbuffered channel a (line 10) and a channel x with
// capacity 2 (line 11), spawns a sender of nSend values on x (line 20) and a sender on a that
// stays blocked (line 30); it selects over {<-a, <-x} (line 40, takes x), receives the other
// values on x (line 41) and closes x (line 42).
func gfuzzRun(nSend int) *Run {
	const a, x = 10, 11
	b := newBuilder()
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: a, Pos: 10})
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: x, Pos: 11, A: 2})
	b.spawn(2, 3, 12)
	b.spawn(2, 4, 13)
	fills := []uint64{1, 2, 2, 1, 1}
	sends := make([]int, nSend+1)
	for k := 1; k <= nSend; k++ {
		sends[k] = b.send(3, x, 20, uint64(k), fills[k-1], 2)
	}
	b.blocked(4, trace.KindChanSend, a, 30)
	sel := b.add(trace.Event{Kind: trace.KindSelect, G: 2, Pos: 40, Aux: 2, A: 1, B: 1,
		Cases: []trace.Case{{Index: 0, Obj: a}, {Index: 1, Obj: x}}})
	b.hb(sends[1], sel)
	for k := 2; k <= nSend; k++ {
		b.hb(sends[k], b.recv(2, x, 41, uint64(k)))
	}
	b.op(2, trace.KindChanClose, x, 42)
	return b.run()
}

func TestGFuzzFeaturesAndScore(t *testing.T) {
	f := ExtractGFuzz(gfuzzRun(5))
	wantPairs := map[string]int{testFile + ":20>" + testFile + ":40": 1, testFile + ":20>" + testFile + ":41": 4}
	if !reflect.DeepEqual(f.Pairs, wantPairs) {
		t.Errorf("pairs %v, want %v", f.Pairs, wantPairs)
	}
	if f.Created != 2 || f.Closed != 1 || f.FillSum != 2 || f.PartnerCases != 1 {
		t.Errorf("created %d closed %d fill %d partner cases %d, want 2 1 2 1", f.Created, f.Closed, f.FillSum, f.PartnerCases)
	}
	if !f.ClosedAt[testFile+":11"] || !f.NotClosedAt[testFile+":10"] || f.MaxFill[testFile+":11"] != 2 {
		t.Errorf("closed %v not closed %v max fill %v", f.ClosedAt, f.NotClosedAt, f.MaxFill)
	}
	// score = log2(1) + log2(4) + 10*2 created + 10*1 closed + 10*2 fill + 10*1 partner case
	//       = 0 + 2 + 20 + 10 + 20 + 10 = 62
	if got := f.Score(); got != 62 {
		t.Errorf("score %v, want 62", got)
	}
	// 3 sends: pairs 20>40 once, 20>41 twice; fills 1,2,2 -> max 2.
	// score = 0 + log2(2) + 20 + 10 + 20 + 10 = 61
	if got := ExtractGFuzz(gfuzzRun(3)).Score(); got != 61 {
		t.Errorf("score with 3 sends %v, want 61", got)
	}
}

func TestPartnerCasesCountOncePerSelectStatement(t *testing.T) {
	r := gfuzzRun(5)
	r.Prepare()
	// The select's first execution and a second one at the same line both have case 0 with a
	// partner: one distinct (position, case) pair; a partner case 1 at another execution adds one.
	var sel int
	for i, e := range r.Trace.Events {
		if e.Cases != nil {
			sel = i
		}
	}
	second := r.Trace.Events[sel]
	second.Index, second.Pre, second.Post = len(r.Trace.Events), 1000, 1000
	r.Trace.Events = append(r.Trace.Events, second)
	r.SelectPartners = map[int][]int{sel: {0}, second.Index: {0}}
	if f := ExtractGFuzz(r); f.PartnerCases != 1 {
		t.Errorf("partner cases %d, want 1", f.PartnerCases)
	}
	r.SelectPartners[second.Index] = []int{0, 1}
	if f := ExtractGFuzz(r); f.PartnerCases != 2 {
		t.Errorf("partner cases %d, want 2", f.PartnerCases)
	}
}

func TestNumMutations(t *testing.T) {
	for _, c := range []struct {
		score, max float64
		want       int
	}{
		{62, 62, 5}, // ceil(5*62/62) = 5
		{61, 62, 5}, // ceil(4.919) = 5
		{30, 62, 3}, // ceil(150/62 = 2.419) = 3
		{12, 62, 1}, // ceil(60/62 = 0.968) = 1
		{0, 62, 0},  // ceil(0) = 0
		{0, 0, 1},   // no score yet: one mutation
	} {
		if got := NumMutations(c.score, c.max); got != c.want {
			t.Errorf("NumMutations(%v, %v) = %d, want %d", c.score, c.max, got, c.want)
		}
	}
}

func TestFlipProbability(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{
		{1, 0.99},         // 1 - 0.01^1
		{2, 0.9},          // 1 - 0.01^(1/2) = 1 - 0.1
		{4, 0.683772234},  // 1 - 0.01^(1/4) = 1 - 0.316227766
		{20, 0.205671765}, // 1 - 0.01^(1/20) = 1 - 0.794328235
		{50, 0.1},         // 1 - 0.01^(1/50) = 0.0880 < 0.1: the floor
	} {
		if got := FlipProbability(c.n); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("FlipProbability(%d) = %.9f, want %.9f", c.n, got, c.want)
		}
	}
}

func TestPickCaseWeightsPartnersTwiceAndNeverRepeats(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	// The recorded case was 1, so the options are 0, 2 and default; only 2 has a partner:
	// weights 1, 2, 1 -> expected frequencies 0.25, 0.5, 0.25.
	options := []int{0, 2, schedule.CaseDefault}
	counts := map[int]int{}
	const n = 20000
	for range n {
		counts[pickCase(rnd, options, map[int]bool{2: true})]++
	}
	if counts[1] != 0 {
		t.Errorf("the recorded case was picked %d times", counts[1])
	}
	for c, want := range map[int]float64{0: 0.25, 2: 0.5, schedule.CaseDefault: 0.25} {
		if got := float64(counts[c]) / n; math.Abs(got-want) > 0.02 {
			t.Errorf("case %d picked with frequency %.3f, want %.2f", c, got, want)
		}
	}
}

func TestGFuzzInterestingAndMutations(t *testing.T) {
	g := NewGFuzz(7)
	muts := g.Next(gfuzzRun(5))
	// 5 mutations (score 62 = max score), each flipping the only flippable select
	// (p = 0.99, and at least one flip is forced) to its only other case, 0: after dedup, one.
	if len(muts) != 1 {
		t.Fatalf("%d mutations, want 1: %+v", len(muts), muts)
	}
	want := []schedule.SelectPreference{{Pos: pos(40), Window: DefaultSelectWindow, Cases: []int{0}}}
	if m := muts[0]; m.Strategy != "gfuzz" || !strings.HasPrefix(m.Key, "gfuzz:") || !reflect.DeepEqual(m.Schedule.Selects, want) {
		t.Errorf("mutation %+v, want selects %+v", m, want)
	}
	// x_test.go cannot be read: the runtime's numbering, 1-based
	if want := "select x_test.go:40 execution 1: case 1 in the runtime's order instead of case 2 in the runtime's order"; muts[0].Note != want {
		t.Errorf("note %q, want %q", muts[0].Note, want)
	}
	if _, err := schedule.Marshal(muts[0].Schedule); err != nil {
		t.Errorf("mutation does not encode: %v", err)
	}
	// The same run again: nothing new, not interesting.
	if muts := g.Next(gfuzzRun(5)); len(muts) != 0 {
		t.Errorf("repeated run gave %d mutations", len(muts))
	}
	// 3 sends: pair 20>41 happens 2 times against a mean of (4+4)/2 = 4: |2-4| >= 0.5*4.
	why := g.State.Interesting(ExtractGFuzz(gfuzzRun(3)))
	if len(why) != 1 || !strings.Contains(why[0], ":41: 2 times, mean 4.00") {
		t.Errorf("reasons %q", why)
	}
	// 4 sends: 3 against 4 is within 50%: not interesting.
	if why := g.State.Interesting(ExtractGFuzz(gfuzzRun(4))); len(why) != 0 {
		t.Errorf("4 sends: reasons %q", why)
	}
}

func TestGFuzzNewCaseIsInteresting(t *testing.T) {
	g := NewGFuzz(1)
	g.Next(gfuzzRun(5))
	r := gfuzzRun(5)
	for i := range r.Trace.Events {
		if e := &r.Trace.Events[i]; e.Kind == trace.KindSelect {
			e.A, e.B = 0, 0 // took <-a this time (and its partner would differ; features only)
		}
	}
	why := g.State.Interesting(ExtractGFuzz(r))
	found := false
	for _, w := range why {
		found = found || strings.Contains(w, "select case "+testFile+":40#0 chosen for the first time")
	}
	if !found {
		t.Errorf("reasons %q lack the new select case", why)
	}
}

func TestGFuzzStateJSON(t *testing.T) {
	g := NewGFuzz(3)
	g.Window = 5 * time.Millisecond
	g.Next(gfuzzRun(5))
	b, err := json.Marshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadGFuzzState(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, g.State) {
		t.Errorf("state changed in JSON:\n%+v\n%+v", s, g.State)
	}
	// The loaded state remembers the queued mutation: the same run proposes nothing.
	g2 := NewGFuzz(3)
	g2.State = s
	g2.Window = g.Window
	g2.State.Created = map[string]bool{} // make the run interesting again
	if muts := g2.Next(gfuzzRun(5)); len(muts) != 0 {
		t.Errorf("reloaded state re-proposed %d mutations", len(muts))
	}
	if _, err := LoadGFuzzState([]byte("{")); err == nil {
		t.Error("corrupt state accepted")
	}
	if s, err := LoadGFuzzState([]byte("{}")); err != nil || s.Queued == nil || s.Chosen == nil {
		t.Errorf("empty state: %+v, %v", s, err)
	}
}
