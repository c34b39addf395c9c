package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// hb asserts the happens-before relation between pairs of operations.
func hb(t *testing.T, b *tracetest.Builder, ordered [][2]*tracetest.Op, unordered [][2]*tracetest.Op) {
	t.Helper()
	c := analyze(t, b).Clocks()
	for _, p := range ordered {
		if !c.HappensBefore(p[0].Index, p[1].Index) {
			t.Errorf("event %d (%s) should happen before event %d (%s)", p[0].Index, p[0].Event().Kind, p[1].Index, p[1].Event().Kind)
		}
	}
	for _, p := range unordered {
		if !c.Concurrent(p[0].Index, p[1].Index) {
			t.Errorf("events %d (%s) and %d (%s) should be concurrent", p[0].Index, p[0].Event().Kind, p[1].Index, p[1].Event().Kind)
		}
	}
}

func TestRuleSpawn(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	c := m.MakeChan(0, "a.go:1")
	srv := m.Go("a.go:2")
	add := m.Add(wg, 1, "a.go:3")
	w := m.Go("a.go:4")
	// the child's first operation is a rendezvous with a goroutine that never heard of it:
	// the child must keep what it inherited from its parent
	send := w.Send(c, "a.go:5")
	recv := srv.Recv(c, "a.go:6")
	done := w.Done(wg, "a.go:7")
	other := m.Send(m.MakeChan(1, "a.go:8"), "a.go:9")
	hb(t, b, [][2]*tracetest.Op{{add, send}, {add, done}, {send, recv}, {add, recv}},
		[][2]*tracetest.Op{{other, send}, {other, done}})
	wantNo(t, analyze(t, b), "negative-waitgroup")
}

func TestRuleChannels(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	unbuf := m.MakeChan(0, "a.go:1")
	buf := m.MakeChan(1, "a.go:2")
	p := m.Go("a.go:3")
	s1 := p.Send(unbuf, "a.go:10")
	r1 := m.Recv(unbuf, "a.go:20")
	pAfter := p.Send(buf, "a.go:11") // buffered send 1
	mAfter := m.Recv(buf, "a.go:21") // buffered recv 1
	s2 := p.Send(buf, "a.go:12")     // send 2 = k+cap: after recv 1
	r2 := m.Recv(buf, "a.go:22")
	pLate := p.Send(buf, "a.go:13") // send 3 completes after recv 2 freed the slot
	r3 := m.Recv(buf, "a.go:23")
	hb(t, b,
		[][2]*tracetest.Op{{s1, r1}, {r1, pAfter}, {pAfter, mAfter}, {mAfter, s2}, {s2, r2}, {r2, pLate}, {pLate, r3}},
		nil)
	// a buffered send is not ordered after an earlier receive of a value sent before it
	b2 := tracetest.New()
	m2 := b2.Main()
	c := m2.MakeChan(2, "a.go:1")
	q := m2.Go("a.go:3")
	x1 := q.Send(c, "a.go:10")
	y1 := m2.Recv(c, "a.go:20")
	x2 := q.Send(c, "a.go:11") // fits in the buffer: not after y1
	mark := m2.Close(m2.MakeChan(0, "a.go:4"), "a.go:21")
	hb(t, b2, [][2]*tracetest.Op{{x1, y1}}, [][2]*tracetest.Op{{x2, y1}, {x2, mark}})
}

func TestRuleCloseAndSelect(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	done := m.MakeChan(0, "a.go:1")
	data := m.MakeChan(0, "a.go:2")
	w := m.Go("a.go:3")
	before := m.Add(b.WaitGroup(), 1, "a.go:4")
	cl := m.Close(done, "a.go:5")
	sel := w.Select("a.go:6", 1, tracetest.RecvCase(data), tracetest.RecvCase(done))
	def := w.Select("a.go:7", tracetest.Default, tracetest.RecvCase(data))
	after := m.Add(b.WaitGroup(), 1, "a.go:8")
	hb(t, b, [][2]*tracetest.Op{{before, sel}, {cl, sel}, {sel, def}}, [][2]*tracetest.Op{{def, after}})
}

func TestRuleMutexes(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	mu, rw := b.Mutex(), b.RWMutex()
	g1, g2, g3 := m.Go("a.go:1"), m.Go("a.go:2"), m.Go("a.go:3")
	// Lock/Unlock hand-over, RUnlock merge, failed TryLock
	l1 := g1.Lock(mu, "a.go:10")
	un1 := g1.Unlock(mu, "a.go:11")
	try := g3.TryLock(mu, "a.go:30", false)
	l2 := g2.Lock(mu, "a.go:20")
	r1 := g1.RLock(rw, "a.go:12")
	r2 := g3.RLock(rw, "a.go:31")
	ru1 := g1.RUnlock(rw, "a.go:13")
	ru2 := g3.RUnlock(rw, "a.go:32")
	w := g2.Lock(rw, "a.go:21") // after BOTH readers (merged read-release clock)
	hb(t, b, [][2]*tracetest.Op{{l1, l2}, {un1, l2}, {ru1, w}, {ru2, w}, {r1, w}, {r2, w}},
		[][2]*tracetest.Op{{try, l2}, {r1, r2}, {try, un1}})
}

func TestRuleOnceAndWaitGroup(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	once, wg := b.Once(), b.WaitGroup()
	m.Add(wg, 2, "a.go:1")
	g1, g2 := m.Go("a.go:2"), m.Go("a.go:3")
	ran := g1.OnceDo(once, "a.go:10")
	waited := g2.OnceDo(once, "a.go:20")
	d1 := g1.Done(wg, "a.go:11")
	d2 := g2.Done(wg, "a.go:21")
	wait := m.Wait(wg, "a.go:4")
	hb(t, b, [][2]*tracetest.Op{{ran, waited}, {d1, wait}, {d2, wait}}, [][2]*tracetest.Op{{d1, d2}})
}
