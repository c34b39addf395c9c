package analysis

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A pool whose Submit recovers the panic of a send on its closed queue, workers that loop
// taking the next task, and a caller that takes one reply.
const shapeSource = `package p

type pool struct {
	queue   chan func()
	replies chan int
	closed  bool
}

func (p *pool) Submit(f func()) (stopped bool) {
	defer func() {
		if recover() != nil {
			stopped = true
		}
	}()
	p.queue <- f // mark:recovered-send
	return false
}

func (p *pool) SubmitNamed(f func()) {
	defer swallow()
	p.queue <- f // mark:named-recover
}

func swallow() { _ = recover() }

func (p *pool) Unguarded(f func()) {
	defer func() { p.closed = true }()
	p.queue <- f // mark:unguarded-send
}

func (p *pool) Nested(f func()) {
	defer func() { recover() }()
	go func() {
		p.queue <- f // mark:nested-send
	}()
}

func worker(task func(), queue chan func()) {
	for task != nil {
		task()
		task = <-queue // mark:loop-recv
	}
}

func (p *pool) call() int {
	return <-p.replies // mark:single-recv
}
`

func writeShapeSource(t *testing.T) (string, map[string]int) {
	t.Helper()
	return writeMarked(t, t.TempDir(), "p.go", shapeSource)
}

func TestSourceShape(t *testing.T) {
	file, lines := writeShapeSource(t)
	for _, tc := range []struct {
		mark             string
		recovers, inLoop bool
	}{
		{"recovered-send", true, false},
		{"named-recover", true, false},
		{"unguarded-send", false, false},
		{"nested-send", false, false}, // the goroutine's function does not recover
		{"loop-recv", false, true},
		{"single-recv", false, false},
	} {
		got := sourceShape(file, lines[tc.mark])
		if got.recovers != tc.recovers || got.inLoop != tc.inLoop {
			t.Errorf("%s: %+v, want recovers %v inLoop %v", tc.mark, got, tc.recovers, tc.inLoop)
		}
	}
	if s := sourceShape(filepath.Join(t.TempDir(), "none.go"), 3); s != (shapeAt{}) {
		t.Errorf("unreadable file: %+v", s)
	}
}

// A send on the closed queue in Submit, which recovers: no finding; the same in a function
// that does not recover: a finding.
func TestSendOnClosedRecovered(t *testing.T) {
	file, lines := writeShapeSource(t)
	at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
	for _, tc := range []struct {
		mark string
		want bool
	}{{"recovered-send", false}, {"named-recover", false}, {"unguarded-send", true}} {
		b := tracetest.New()
		m := b.Main()
		q := m.MakeChan(0, file+":60")
		m.Close(q, file+":61")
		m.Send(q, at(tc.mark))
		r := analyze(t, b)
		if tc.want {
			want(t, r, "send-on-closed", Actual, "p.go:"+strconv.Itoa(lines[tc.mark]))
		} else {
			wantNo(t, r, "send-on-closed")
		}
	}
}

// Workers started at one go statement, taking tasks in a loop: not concurrent-recv. The
// same receive by workers of two go statements, or a single receive (a caller's reply) by
// goroutines of one go statement, still is.
func TestConcurrentRecvSymmetricWorkers(t *testing.T) {
	file, lines := writeShapeSource(t)
	at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
	run := func(recv, spawn1, spawn2 string) *Result {
		b := tracetest.New()
		m := b.Main()
		q := m.MakeChan(0, file+":60")
		w1 := m.Go(spawn1)
		w2 := m.Go(spawn2)
		s1 := m.Go(file + ":63")
		s2 := m.Go(file + ":64")
		s1.Send(q, file+":62")
		w1.Recv(q, recv)
		s2.Send(q, file+":62")
		w2.Recv(q, recv)
		return analyze(t, b)
	}
	wantNo(t, run(at("loop-recv"), file+":70", file+":70"), "concurrent-recv")
	want(t, run(at("loop-recv"), file+":70", file+":71"), "concurrent-recv", Actual, "p.go:"+strconv.Itoa(lines["loop-recv"]))
	want(t, run(at("single-recv"), file+":70", file+":70"), "concurrent-recv", Actual, "p.go:"+strconv.Itoa(lines["single-recv"]))
}
