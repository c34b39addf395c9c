package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const ownerPkg = `package p

import "context"

type Router struct{ closing chan struct{} }

func NewRouter() *Router { return &Router{closing: make(chan struct{})} }

func (r *Router) wait(ctx context.Context) {
	select {
	case <-r.closing:
	case <-ctx.Done():
	}
}

func (r *Router) Close() { close(r.closing) }

type Worker struct{ stop chan struct{} }

func NewWorker() *Worker { return &Worker{stop: make(chan struct{})} }

func (w *Worker) Close() { close(w.stop) }

type Pool struct{ w *Worker }

func NewPool() *Pool { return &Pool{w: NewWorker()} }
`

const ownerTest = `package p

import "testing"

func TestRouter(t *testing.T) { NewRouter() }

func TestPool(t *testing.T) { NewPool() }

func TestWorker(t *testing.T) { NewWorker().Close() }

func newRouter() *Router { return NewRouter() }

func TestOther(t *testing.T) { newRouter() }
`

func writeOwnerPkg(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"p.go": ownerPkg, "p_test.go": ownerTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A select that waits for the close of an object the test made and never closed, and for
// a context's Done: had the test called Close, the select would have left by that case, so
// the leak is the test's (test-only), naming the Close (watermill's router).
func TestLeakSelectTestMadeWithContextCase(t *testing.T) {
	dir := writeOwnerPkg(t)
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	b := tracetest.New().Meta("testgoid", "1")
	m := b.Main()
	closing := m.MakeChan(0, at("7"))
	w := m.Go(at("7"))
	done := w.MakeLibChan(0, at("12"))
	w.Pending().Select(at("10"), 0, tracetest.RecvCase(closing), tracetest.RecvCase(done))
	m.End()
	r := analyzeTest(t, b, "TestRouter", dir)
	f := want(t, r, "leak-select", Actual, "p.go:10")
	if !f.TestOnly || f.Severity != SeverityWarning || !strings.Contains(f.Message, "close(r.closing) at p.go:16 in (*Router).Close") ||
		!strings.Contains(f.Message, "the test made it (NewRouter, called at p_test.go:5)") {
		t.Errorf("test only %v, severity %s, message %q", f.TestOnly, f.Severity, f.Message)
	}
}

// A worker made by the pool's constructor, on the test's goroutine, whose Close never ran:
// the pool owns it (NewPool returns a *Pool, not the *Worker whose Close is the way out),
// so the leak stays the package's (error), although another test makes a worker itself.
func TestLeakOwnedObjectNotTestMade(t *testing.T) {
	dir := writeOwnerPkg(t)
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	for _, test := range []string{"TestPool"} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		stop := m.MakeChan(0, at("20"))
		w := m.Go(at("20"))
		w.Pending().Recv(stop, at("20"))
		m.End()
		r := analyzeTest(t, b, test, dir)
		f := want(t, r, "leak-chan", Actual, "p.go:20")
		if f.TestOnly || f.Severity != SeverityError || !strings.Contains(f.Message, "close(w.stop) at p.go:22 in (*Worker).Close") {
			t.Errorf("test %q: test only %v, severity %s, message %q", test, f.TestOnly, f.Severity, f.Message)
		}
	}
}

func analyzeTest(t *testing.T, b *tracetest.Builder, test, dir string) *Result {
	t.Helper()
	tr, err := trace.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := AnalyzeWith(tr, Options{Test: test, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A goroutine of the package ranging over a channel the test made, sent on only by the
// test and never closed: it waits for the test to close it (test-only). The same channel
// sent on by the package's code too stays the package's leak.
func TestLeakOnTestsChannel(t *testing.T) {
	dir := writeOwnerPkg(t)
	at := func(f, line string) string { return filepath.Join(dir, f) + ":" + line }
	for _, pkgSends := range []bool{false, true} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		in := m.MakeChan(0, at("p_test.go", "5"))
		w := m.Go(at("p.go", "20"))
		m.Send(in, at("p_test.go", "5"))
		w.Recv(in, at("p.go", "22"))
		if pkgSends {
			u := m.Go(at("p.go", "20"))
			u.Send(in, at("p.go", "24"))
			w.Recv(in, at("p.go", "22"))
			u.End()
		}
		w.Pending().Recv(in, at("p.go", "22"))
		m.End()
		r := analyzeTest(t, b, "TestRouter", dir)
		f := want(t, r, "leak-chan", Actual, "p.go:22")
		if f.TestOnly == pkgSends || !strings.Contains(f.Message, "it waits for the channel the test made at p_test.go:5, which nothing closed") {
			t.Errorf("package sends %v: test only %v, message %q", pkgSends, f.TestOnly, f.Message)
		}
	}
}

// The test made the router when its own function, or a helper its function calls, calls
// the maker; a helper only another test calls is not this test's (the router made on the
// test's goroutine by the package's code, as watermill's router made its decorator's
// channel, stays the package's leak).
func TestLeakTestMadeThroughHelper(t *testing.T) {
	dir := writeOwnerPkg(t)
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	for test, wantCall := range map[string]string{"TestOther": "p_test.go:11", "TestPool": ""} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		closing := m.MakeChan(0, at("7"))
		w := m.Go(at("7"))
		w.Pending().Recv(closing, at("12"))
		m.End()
		r := analyzeTest(t, b, test, dir)
		f := want(t, r, "leak-chan", Actual, "p.go:12")
		if f.TestOnly != (wantCall != "") || wantCall != "" && !strings.Contains(f.Message, "called at "+wantCall+")") {
			t.Errorf("%s: test only %v, message %q", test, f.TestOnly, f.Message)
		}
	}
}
