package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A select whose first clause is a receive and second a send: the runtime records the send
// as case 1 and the receive as case 2.
const pumpSource = `package p

type pump struct {
	in   chan int
	out  chan int
	quit chan struct{}
}

func newPump() *pump {
	p := &pump{in: make(chan int)}
	p.out = make(chan int)
	p.quit = make(chan struct{})
	go p.run()
	return p
}

func (p *pump) run() {
	for v := range p.in {
		select {
		case <-p.quit:
			return
		case p.out <- v:
		}
	}
}
`

// pumpTrace records a run of pumpSource in dir: the quit case never has a partner.
func pumpTrace(t *testing.T, dir string) *Result {
	t.Helper()
	file := filepath.Join(dir, "p.go")
	at := func(line string) string { return file + ":" + line }
	b := tracetest.New()
	m := b.Main()
	in := m.MakeChan(0, at("10"))
	out := m.MakeChan(0, at("11"))
	quit := m.MakeChan(0, at("12"))
	w := m.Go(at("13"))
	m.Send(in, "p_test.go:5")
	w.Recv(in, at("18"))
	w.Select(at("19"), 0, tracetest.SendCase(out), tracetest.RecvCase(quit))
	m.Recv(out, "p_test.go:6")
	w.End()
	return analyze(t, b)
}

func TestSelectCaseNamedInSourceOrder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(pumpSource), 0o644); err != nil {
		t.Fatal(err)
	}
	r := pumpTrace(t, dir)
	f := want(t, r, "select-case-without-partner", Actual, "p.go:19", "channel made=p.go:12")
	if !strings.HasPrefix(f.Message, "case 1 (`<-p.quit`, line 20) of the select at p.go:19, a receive from the channel made at p.go:12,") {
		t.Errorf("message %q", f.Message)
	}
	last := f.Positions[len(f.Positions)-1]
	if last.Role != "case" || last.File != filepath.Join(dir, "p.go") || last.Line != 20 || last.Column != 3 {
		t.Errorf("case position %+v, want the clause at p.go:20:3", last)
	}

	// Without the source, the runtime's numbering (the receive is its second case), said so;
	// the fingerprint does not depend on the source.
	if err := os.Remove(filepath.Join(dir, "p.go")); err != nil {
		t.Fatal(err)
	}
	g := want(t, pumpTrace(t, dir), "select-case-without-partner", Actual, "p.go:19")
	if !strings.HasPrefix(g.Message, "case 2 in the runtime's order, send cases first (p.go could not be read)") {
		t.Errorf("fallback message %q", g.Message)
	}
	for _, p := range g.Positions {
		if p.Role == "case" {
			t.Errorf("fallback has a case position %+v", p)
		}
	}
	if g.Fingerprint != f.Fingerprint {
		t.Errorf("fingerprint %s without the source, %s with it", g.Fingerprint, f.Fingerprint)
	}
}
