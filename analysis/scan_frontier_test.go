package analysis

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// pairLines returns the source lines of the concurrent pairs of kind.
func pairLines(r *Result, kind PairKind) [][2]int {
	var out [][2]int
	for _, p := range r.ConcurrentPairs() {
		if p.Kind == kind {
			out = append(out, [2]int{r.Trace.Position(r.Trace.Events[p.First].Pos).Line, r.Trace.Position(r.Trace.Events[p.Second].Pos).Line})
		}
	}
	return out
}

// A channel whose users were all ordered (a frontier covers them) gets a user updated in
// place that is not ordered before a later send: the scan must still find it.
func TestChanFrontierSeesUpdatedUser(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(0, "main.go:5")
	l := m.Go("main.go:6")
	l.Send(c, "l.go:7")
	m.Recv(c, "main.go:8")
	for range 40 { // ordered senders, one after another through main
		w := m.Go("main.go:9")
		w.Send(c, "w.go:10")
		m.Recv(c, "main.go:11")
		w.End()
	}
	last := m.Go("main.go:12")
	l.Send(c, "l.go:7") // l's user entry now holds this send, which main never learns
	last.Send(c, "last.go:20")
	m.Recv(c, "main.go:13")
	m.Recv(c, "main.go:14")
	r := Analyze(b.Trace())
	x, _ := r.eng.chanIndex(uint64(c))
	if r.eng.chans[x].front == nil || r.eng.chans[x].front[classSend].n == 0 {
		t.Fatalf("no frontier kept for the channel's senders")
	}
	if got, want := pairLines(r, PairSend), [][2]int{{10, 7}, {7, 20}}; !slices.Equal(got, want) {
		t.Errorf("send pairs %v, want %v", got, want)
	}
}

// Many goroutines lock one mutex one after another, ordered through a channel; then two
// lock it unordered: the frontier skips the ordered ones and the pair is found.
func TestMutexFrontier(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu := b.Mutex()
	done := m.MakeChan(0, "main.go:5")
	for range 40 {
		w := m.Go("main.go:6")
		w.Lock(mu, "w.go:10")
		w.Unlock(mu, "w.go:11")
		w.Send(done, "w.go:12")
		m.Recv(done, "main.go:7")
		w.End()
	}
	a, c := m.Go("main.go:8"), m.Go("main.go:9")
	a.Lock(mu, "a.go:30")
	a.Unlock(mu, "a.go:31")
	c.Lock(mu, "c.go:40")
	c.Unlock(mu, "c.go:41")
	r := Analyze(b.Trace())
	if fr := r.eng.mutexes[0].front; fr == nil || !fr.valid {
		t.Fatalf("no frontier kept for the mutex's acquisitions")
	}
	if got, want := pairLines(r, PairLock), [][2]int{{30, 40}}; !slices.Equal(got, want) {
		t.Errorf("lock pairs %v, want %v", got, want)
	}
}

// readerSet behaves as the list it replaces, through the indexed mode and its compaction.
func TestReaderSet(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var s readerSet
	var model []heldRead
	for n := range 20000 {
		g := int32(rng.Intn(30))
		if rng.Intn(2) == 0 || len(model) == 0 && rng.Intn(4) > 0 {
			s.add(g, int32(n))
			model = append(model, heldRead{g, int32(n)})
		} else {
			// the newest of g's, else the newest
			k := len(model) - 1
			for j := len(model) - 1; j >= 0; j-- {
				if model[j].g == g {
					k = j
					break
				}
			}
			var r heldRead
			k2 := s.newestOf(g)
			if k2 < 0 && s.len() > 0 {
				k2 = len(s.list) - 1 // as runlock does when nothing was handed over
			}
			ok := k2 >= 0
			if ok {
				r = s.removeAt(k2)
			}
			if k < 0 {
				if ok {
					t.Fatalf("op %d: released %v from an empty set", n, r)
				}
				continue
			}
			if !ok || r != model[k] {
				t.Fatalf("op %d: removeAt(newestOf(%d)) = %v %v, want %v", n, g, r, ok, model[k])
			}
			model = slices.Delete(model, k, k+1)
		}
		if s.len() != len(model) || len(model) > 0 && s.last() != model[len(model)-1] {
			t.Fatalf("op %d: len %d last %v, want %d %v", n, s.len(), s.last(), len(model), model)
		}
		h := int32(rng.Intn(30))
		want := int32(-1)
		for _, r := range model {
			if r.g == h {
				want = r.ev
				break
			}
		}
		if got := s.firstOf(h); got != want {
			t.Fatalf("op %d: firstOf(%d) = %d, want %d", n, h, got, want)
		}
	}
	if s.byG == nil {
		t.Errorf("the set never went to its indexed mode")
	}
}
