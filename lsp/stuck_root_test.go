package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace/tracetest"
	"github.com/goweave/goweave/fuzzer"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

const leakedLockSource = `package buggy

import (
	"sync"
	"testing"
)

type pool struct{ mu sync.Mutex }

func (p *pool) get(fail bool) {
	p.mu.Lock()
	if fail {
		return
	}
	p.mu.Unlock()
}

func (p *pool) put() {
	p.mu.Lock()
	p.mu.Unlock()
}

func TestSend(t *testing.T) {
	p := &pool{}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); p.get(true) }()
	go func() { defer wg.Done(); p.put() }()
	go func() { defer wg.Done(); p.get(false) }()
	wg.Wait()
}
`

// The deadlock of a leaked lock, as the analysis reports it, is one diagnostic on the
// Lock never released, with the goroutines queued behind it as related information on
// their Locks.
func TestStuckRootDiagnostic(t *testing.T) {
	dir, _ := buggyPackage(t)
	file := filepath.Join(dir, "buggy_test.go")
	write(t, file, leakedLockSource)
	at := func(s string) string { return fmt.Sprintf("%s:%d", file, lineOf(t, leakedLockSource, s)) }
	getLock := fmt.Sprintf("%s:%d", file, lineOf(t, leakedLockSource, "func (p *pool) get")+1)
	putLock := fmt.Sprintf("%s:%d", file, lineOf(t, leakedLockSource, "func (p *pool) put")+1)

	b := tracetest.New().Meta("exit", "deadlock").Meta("testgoid", "1")
	m := b.Main()
	wg := b.WaitGroup()
	mu := b.Mutex()
	m.Add(wg, 3, at("wg.Add(3)"))
	leaker, putter, getter := m.Go(at("p.get(true)")), m.Go(at("p.put()")), m.Go(at("p.get(false)"))
	leaker.Lock(mu, getLock)
	leaker.Done(wg, at("p.get(true)"))
	leaker.End()
	putter.Pending().Lock(mu, putLock)
	getter.Pending().Lock(mu, getLock)
	m.Pending().Wait(wg, at("wg.Wait()"))
	r := analysis.Analyze(b.Trace())
	var stuck []fuzzer.Finding
	for _, f := range r.Findings {
		if f.Kind == "deadlock" {
			stuck = append(stuck, fuzzer.Finding{Finding: f, ID: "d1", Run: 1})
		}
	}
	if len(stuck) != 1 {
		t.Fatalf("%d deadlock findings, want one: %+v", len(stuck), r.Findings)
	}

	engine := &fakeEngine{fuzz: reportOf(stuck...)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(file)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(file), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	var pub *protocol.PublishDiagnosticsParams
	waitFor(t, "diagnostics", func() bool {
		p, ok := se.client.diagsOf(file)
		pub = p
		return ok && len(p.Diagnostics) > 0
	})
	if len(pub.Diagnostics) != 1 {
		t.Fatalf("%d diagnostics, want the stuck state as one: %+v", len(pub.Diagnostics), pub.Diagnostics)
	}
	d := pub.Diagnostics[0]
	getLine := lineOf(t, leakedLockSource, "func (p *pool) get") + 1
	if got := rangeText(t, leakedLockSource, d.Range); got != ".Lock()" || int(d.Range.Start.Line) != getLine-1 {
		t.Errorf("diagnostic covers %q on line %d, want the Lock never released on line %d", got, d.Range.Start.Line+1, getLine)
	}
	if msg := string(d.Message.(protocol.String)); !strings.Contains(msg, "never released") {
		t.Errorf("message %q does not say the lock was never released", msg)
	}
	related := map[string]bool{}
	for _, ri := range d.RelatedInformation {
		related[fmt.Sprintf("%s@%d:%s", ri.Message, ri.Location.Range.Start.Line+1, rangeText(t, leakedLockSource, ri.Location.Range))] = true
	}
	putLine := lineOf(t, leakedLockSource, "func (p *pool) put") + 1
	waitLine := lineOf(t, leakedLockSource, "wg.Wait()")
	for _, w := range []string{fmt.Sprintf("also blocked@%d:.Lock()", putLine), fmt.Sprintf("also blocked@%d:.Wait()", waitLine)} {
		if !related[w] {
			t.Errorf("related information %v lacks %s", related, w)
		}
	}
	se.shutdown()
}
