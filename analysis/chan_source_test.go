package analysis

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A package whose channels are stored, served and passed in the ways sourceMayServe tells
// apart. Each make is marked with a comment naming it.
const servedSource = `package p

import "sync"

type worker struct {
	stop      chan struct{}
	interrupt chan struct{}
	results   chan int
	Exported  chan int
	mu        sync.Mutex
}

type manager struct{ stop chan struct{} }

func newWorker() *worker {
	return &worker{
		stop:      make(chan struct{}), // mark:stop
		interrupt: make(chan struct{}), // mark:interrupt
		results:   make(chan int),      // mark:results
		Exported:  make(chan int),      // mark:exported
	}
}

func (w *worker) cancel() { close(w.interrupt) }

func (w *worker) loop(jobs <-chan int) {
	for {
		select {
		case <-w.stop:
			return
		case <-w.interrupt:
			w.interrupt = make(chan struct{}) // mark:reinterrupt
		case j := <-jobs:
			select {
			case w.results <- j:
			case <-w.stop:
			}
		}
	}
}

func run(m *manager) {
	quit, done := make(chan int), make(chan int) // mark:pair
	go func() {
		select {
		case <-quit:
		case <-jobsOf(m):
		}
		close(done)
	}()
	<-done
	local := make(chan int) // mark:local
	passed := make(chan int) // mark:passed
	go consume(passed)
	if local != nil && len(local) == 0 {
		select {
		case <-local:
		case passed <- 1:
		}
	}
	close(m.stop)
	_ = returned()
}

func consume(c chan int) {}

func jobsOf(m *manager) chan int { return nil }

func returned() chan int {
	return make(chan int) // mark:returned
}

type cache[T any] struct{ deletables chan T }

func newCache[T any]() *cache[T] {
	return &cache[T]{deletables: make(chan T)} // mark:generic
}

func (c *cache[T]) Delete(v T) { c.deletables <- v }

type producer struct{ responses chan int }

func newProducer() *producer {
	var (
		responses = make(chan int) // mark:fedlocal
	)
	p := &producer{responses: responses}
	go func() { responses <- 1 }()
	return p
}

func (p *producer) wait() int {
	select {
	case r := <-p.responses:
		return r
	}
}

func testProducer() *producer {
	return &producer{responses: make(chan int)} // mark:fed
}

type box struct{ c chan int }

func fill(b *box) {
	c := make(chan int) // mark:boxlocal
	b.c = c
	<-c
}

func testBox() *box { return &box{c: make(chan int)} } // mark:box

type param struct{ c chan int }

func newParam(c chan int) *param { return &param{c: c} }

func testParam() *param { return &param{c: make(chan int)} } // mark:param
`

func writeServedSource(t *testing.T) (file string, lines map[string]int) {
	t.Helper()
	dir := t.TempDir()
	file, lines = writeMarked(t, dir, "w.go", servedSource)
	// a file of another package in the same directory must not count
	other := "package q\n\nfunc f(c chan int) { close(c) }\n"
	if err := os.WriteFile(filepath.Join(dir, "q.go"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, lines
}

func TestSourceMayServe(t *testing.T) {
	file, lines := writeServedSource(t)
	for _, tc := range []struct {
		mark string
		send bool
		want bool
		why  string
	}{
		{"stop", false, false, "w.stop is only received from; close(m.stop) closes another struct's field"},
		{"interrupt", false, true, "cancel closes w.interrupt"},
		{"reinterrupt", false, true, "the field made again is the same field cancel closes"},
		{"results", true, false, "nothing receives from w.results"},
		{"results", false, true, "a receive case on w.results has the select's send as partner"},
		{"exported", false, true, "another package may use an exported field"},
		{"local", false, false, "a local only received from, compared and measured"},
		{"passed", true, true, "passed to a function: the check cannot follow it"},
		{"returned", false, true, "returned: the check cannot follow it"},
		{"generic", false, true, "Delete sends on the field of the generic type (each instantiation's field is its own types.Var; their origin is one)"},
		{"fed", false, true, "newProducer stores its local responses, which its goroutine sends on, into the field: a test's own channel in the field leaves the case unexercised, not dead"},
		{"box", false, false, "fill stores its local c into b.c and only receives from it"},
		{"boxlocal", false, true, "the local is copied into a field: the check does not follow it there"},
		{"param", false, true, "newParam stores the caller's channel into the field: the check does not follow calls"},
	} {
		if got := sourceMayServe(file, lines[tc.mark], tc.send, trace.Position{}); got != tc.want {
			t.Errorf("%s (send case %v): sourceMayServe = %v, want %v: %s", tc.mark, tc.send, got, tc.want, tc.why)
		}
	}
	pairSelect := trace.Position{File: file, Line: lines["pair"] + 2}
	if sourceMayServe(file, lines["pair"], false, pairSelect) {
		t.Error("quit, done := make(), make(): the select's case uses quit, which nothing serves (done is closed)")
	}
	if !sourceMayServe(file, lines["pair"], false, trace.Position{}) {
		t.Error("two makes on a line and no select to tell them apart: served when either is")
	}
	if sourceMayServe(filepath.Join(t.TempDir(), "missing.go"), 3, false, trace.Position{}) {
		t.Error("an unreadable source must leave the trace's verdict (false)")
	}
	if sourceMayServe(file, 1, false, trace.Position{}) {
		t.Error("a line without a make must leave the trace's verdict (false)")
	}
}

// End to end: the same dead-looking case is a finding when the source never serves its
// channel (w.stop) and none when a method the run did not call closes it (w.interrupt).
func TestSelectCaseUnexercisedNotDead(t *testing.T) {
	file, lines := writeServedSource(t)
	at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
	sel := file + ":40"
	b := tracetest.New()
	m := b.Main()
	stop := m.MakeChan(0, at("stop"))
	interrupt := m.MakeChan(0, at("interrupt"))
	jobs := m.MakeChan(0, file+":60")
	w := m.Go(file + ":61")
	for i := 0; i < 3; i++ {
		m.Send(jobs, file+":62")
		w.Select(sel, 2, tracetest.RecvCase(stop), tracetest.RecvCase(interrupt), tracetest.RecvValueCase(jobs))
	}
	w.End()
	r := analyze(t, b)
	want(t, r, "select-case-without-partner", Actual, "w.go:40", "channel made=w.go:"+strconv.Itoa(lines["stop"]))
	for _, f := range r.Findings {
		if f.Kind == "select-case-without-partner" && strings.Contains(f.Message, "case 2") {
			t.Errorf("the interrupt case is served by cancel(): %s", f.Message)
		}
	}
}
