package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const waitChainPkg = `package p

import "sync"

type Router struct {
	stop       chan struct{}
	handlersWg *sync.WaitGroup
}

func NewRouter() *Router { return &Router{stop: make(chan struct{}), handlersWg: &sync.WaitGroup{}} }

func (r *Router) Run() {
	r.handlersWg.Add(1)
	go func() {
		<-r.stop
		r.handlersWg.Done()
	}()
	go r.watch()
}

func (r *Router) watch() { r.handlersWg.Wait() }

func (r *Router) Close() { close(r.stop) }

func (r *Router) RunOwn() {
	r.handlersWg.Add(1)
	stop := make(chan struct{})
	go r.handle(stop)
	go r.watch()
}

func (r *Router) handle(stop chan struct{}) {
	defer r.handlersWg.Done()
	<-stop
}

func (r *Router) CloseWait() {
	var waitGroup sync.WaitGroup
	waitGroup.Add(1)
	go func() {
		defer waitGroup.Done()
		r.handlersWg.Wait()
	}()
	go waitFor(&waitGroup)
}

func waitFor(wg *sync.WaitGroup) { wg.Wait() }
`

const waitChainTest = `package p

import "testing"

func TestRouter(t *testing.T) {
	r := NewRouter()
	r.Run()
}
`

// A watcher waits for the handlers' WaitGroup; the handler owing its Done waits for the
// router's close, which the test never ran: a test-only leak, and the Wait behind it is the
// test's too, naming the handler. A handler waiting on a channel of its own that nothing
// can close is the package's leak, and so is the Wait behind it.
func TestLeakWaitGroupFollowsTestOnlyOwers(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"p.go": waitChainPkg, "p_test.go": waitChainTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	for _, testOwned := range []bool{true, false} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		wg := b.WaitGroup()
		if testOwned {
			stop := m.MakeChan(0, at("10"))
			m.Add(wg, 1, at("13"))
			h := m.Go(at("14"))
			h.Pending().Recv(stop, at("15"))
			w := m.Go(at("18"))
			w.Pending().Wait(wg, at("21"))
		} else {
			m.Add(wg, 1, at("26"))
			stop := m.MakeChan(0, at("27"))
			h := m.Go(at("28"))
			h.Pending().Recv(stop, at("34"))
			w := m.Go(at("29"))
			w.Pending().Wait(wg, at("21"))
		}
		m.End()
		r := analyzeTest(t, b, "TestRouter", dir)
		handler := map[bool]string{true: "p.go:15", false: "p.go:34"}[testOwned]
		if h := want(t, r, "leak-chan", Actual, handler); h.TestOnly != testOwned {
			t.Fatalf("test owned %v: the handler's leak: test only %v, message %q", testOwned, h.TestOnly, h.Message)
		}
		f := want(t, r, "leak-waitgroup", Actual, "p.go:21")
		wantSev := map[bool]Severity{true: SeverityWarning, false: SeverityError}[testOwned]
		chain := "the Done it waits for belongs to the goroutine started at p.go:14, blocked at p.go:15, a leak of the test's: test-only"
		if f.TestOnly != testOwned || f.Severity != wantSev || strings.Contains(f.Message, chain) != testOwned {
			t.Errorf("test owned %v: test only %v, severity %s, message %q", testOwned, f.TestOnly, f.Severity, f.Message)
		}
		if testOwned {
			want(t, r, "leak-waitgroup", Actual, "p.go:21", "owes a Done=p.go:15")
		}
	}
}

// A handler of the test's that never returns (an empty select in the test's file), started
// by the package, owes the router's WaitGroup its Done: the handler is the test's leak, and
// the Wait behind it follows (watermill's router tests of a handler that never returns).
func TestLeakWaitGroupBehindTestsEmptySelect(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"p.go": waitChainPkg, "p_test.go": waitChainTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(f, line string) string { return filepath.Join(dir, f) + ":" + line }
	b := tracetest.New().Meta("testgoid", "1")
	m := b.Main()
	wg := b.WaitGroup()
	m.Add(wg, 1, at("p.go", "26"))
	h := m.Go(at("p.go", "28"))
	h.Pending().Select(at("p_test.go", "7"), 0)
	w := m.Go(at("p.go", "29"))
	w.Pending().Wait(wg, at("p.go", "21"))
	m.End()
	r := analyzeTest(t, b, "TestRouter", dir)
	s := want(t, r, "leak-select", Actual, "p_test.go:7")
	if !s.TestOnly || s.Severity != SeverityWarning || !strings.Contains(s.Message, "it waits in the test's empty select {}, which nothing can end: test-only") {
		t.Errorf("the handler's leak: test only %v, severity %s, message %q", s.TestOnly, s.Severity, s.Message)
	}
	f := want(t, r, "leak-waitgroup", Actual, "p.go:21", "owes a Done=p_test.go:7")
	if !f.TestOnly || f.Severity != SeverityWarning {
		t.Errorf("the Wait: test only %v, severity %s, message %q", f.TestOnly, f.Severity, f.Message)
	}
}

// A helper waits, under another name, for a WaitGroup whose Done is owed by a goroutine
// started right after its Add, itself waiting behind the test-only handler: the chain
// reaches the helper's Wait too (watermill's Close, waiting for its handlers with a timeout).
func TestLeakWaitGroupChainThroughAddThenGo(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"p.go": waitChainPkg, "p_test.go": waitChainTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	b := tracetest.New().Meta("testgoid", "1")
	m := b.Main()
	wg, local := b.WaitGroup(), b.WaitGroup()
	stop := m.MakeChan(0, at("10"))
	m.Add(wg, 1, at("13"))
	h := m.Go(at("14"))
	h.Pending().Recv(stop, at("15"))
	m.Add(local, 1, at("39"))
	c := m.Go(at("40"))
	c.Pending().Wait(wg, at("42"))
	x := m.Go(at("44"))
	x.Pending().Wait(local, at("47"))
	m.End()
	r := analyzeTest(t, b, "TestRouter", dir)
	for _, w := range []struct{ at, ower string }{{"p.go:42", "p.go:15"}, {"p.go:47", "p.go:42"}} {
		f := want(t, r, "leak-waitgroup", Actual, w.at, "owes a Done="+w.ower)
		if !f.TestOnly || f.Severity != SeverityWarning {
			t.Errorf("the Wait at %s: test only %v, severity %s, message %q", w.at, f.TestOnly, f.Severity, f.Message)
		}
	}
}
