package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const lostSignalPkg = `package p

type Router struct {
	added  chan struct{}
	closed chan struct{}
}

func NewRouter() *Router { return &Router{added: make(chan struct{}), closed: make(chan struct{})} }

func (r *Router) Add() {
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *Router) watch() {
	select {
	case <-r.added:
	case <-r.closed:
	}
}

func (r *Router) Run() { go r.watch() }

func (r *Router) Close() { close(r.closed) }
`

const lostSignalTest = `package p

import "testing"

func TestRouter(t *testing.T) {
	r := NewRouter()
	r.Add()
	r.Run()
}
`

// A watcher waits for a handler's signal or the router's close; the test made the router
// and never closed it. With no signal sent, the leak is the test's (test-only). When the
// package's non-blocking send of the signal took its default before the watcher waited,
// the signal was lost: the package's leak (an error), naming the dropped send. On a
// buffered channel a dropped send leaves a value pending: not judged, test-only still.
func TestLeakLostSignalIsThePackages(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"p.go": lostSignalPkg, "p_test.go": lostSignalTest} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	for _, c := range []struct {
		name     string
		drop     bool
		capacity int
		testOnly bool
	}{
		{"no signal", false, 0, true},
		{"dropped", true, 0, false},
		{"buffered", true, 1, true},
	} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		added := m.MakeChan(c.capacity, at("8"))
		closed := m.MakeChan(0, at("8"))
		if c.drop {
			m.Select(at("11"), tracetest.Default, tracetest.SendCase(added))
		}
		w := m.Go(at("24"))
		w.Pending().Select(at("18"), 0, tracetest.RecvCase(added), tracetest.RecvCase(closed))
		m.End()
		r := analyzeTest(t, b, "TestRouter", dir)
		f := want(t, r, "leak-select", Actual, "p.go:18")
		lost := "the non-blocking send at p.go:11 (by the test goroutine) took its default before this goroutine was waiting: the signal was lost"
		wantSev := map[bool]Severity{true: SeverityWarning, false: SeverityError}[c.testOnly]
		if f.TestOnly != c.testOnly || f.Severity != wantSev || strings.Contains(f.Message, lost) == c.testOnly ||
			strings.Contains(f.Message, "the test made it (NewRouter, called at p_test.go:6)") != c.testOnly {
			t.Errorf("%s: test only %v, severity %s, message %q", c.name, f.TestOnly, f.Severity, f.Message)
		}
		if !c.testOnly {
			want(t, r, "leak-select", Actual, "p.go:18", "dropped send=p.go:11")
		}
	}
}
