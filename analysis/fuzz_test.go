package analysis

import (
	"bytes"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// fuzzSeeds are small traces that exercise every rule.
func fuzzSeeds() [][]byte {
	b := tracetest.New()
	m := b.Main()
	mu, rw := b.Mutex(), b.RWMutex()
	cond := b.Cond(mu)
	wg, once := b.WaitGroup(), b.Once()
	c0, c1 := m.MakeChan(0, "a.go:1"), m.MakeChan(1, "a.go:2")
	m.Add(wg, 2, "a.go:3")
	g1, g2 := m.Go("a.go:4"), m.Go("a.go:5")
	g1.Send(c0, "a.go:6")
	g2.Select("a.go:7", 0, tracetest.RecvValueCase(c0), tracetest.SendCase(c1))
	g1.Send(c1, "a.go:8")
	m.Recv(c1, "a.go:9")
	g1.Lock(mu, "a.go:10")
	g1.Lock(rw, "a.go:11")
	g1.Unlock(rw, "a.go:12")
	g1.Unlock(mu, "a.go:13")
	g2.RLock(rw, "a.go:14")
	g2.RLock(rw, "a.go:15")
	g2.RUnlock(rw, "a.go:16")
	g2.RUnlock(rw, "a.go:17")
	g2.TryLock(mu, "a.go:18", true)
	w := g2.CondWait(cond, "a.go:19")
	m.Lock(mu, "a.go:20")
	m.Broadcast(cond, "a.go:21")
	m.Unlock(mu, "a.go:22")
	w.Complete()
	g2.Unlock(mu, "a.go:23")
	g1.OnceDo(once, "a.go:24")
	g2.OnceDo(once, "a.go:25")
	g1.Done(wg, "a.go:26")
	g2.Done(wg, "a.go:27")
	m.Wait(wg, "a.go:28")
	m.Close(c0, "a.go:29")
	m.Pending().Recv(c1, "a.go:30")
	g1.Pending().Lock(mu, "a.go:31")
	all := b.Bytes()

	d := tracetest.New().Meta("exit", "deadlock")
	dm := d.Main()
	x, y := d.Mutex(), d.Mutex()
	dg := dm.Go("b.go:1")
	dg.Lock(x, "b.go:2")
	dm.Lock(y, "b.go:3")
	dg.Pending().Lock(y, "b.go:4")
	dm.Pending().Lock(x, "b.go:5")
	return [][]byte{all, d.Bytes()}
}

// FuzzAnalyze: whatever the reader accepts, the analysis handles without panicking, however
// inconsistent the events are (sequence numbers pointing anywhere, one object used as a
// channel and a mutex, unknown goroutines, ...).
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := trace.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		r := Analyze(tr)
		r.SelectPartnersByEvent()
		r.ConcurrentPairs()
		c := r.Clocks()
		for i := 0; i < len(tr.Events) && i < 50; i++ {
			c.Concurrent(i, len(tr.Events)-1-i)
		}
	})
}
