package mutate

import (
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// The hand-built traces of these tests: goroutine 1 is main, it spawns the test goroutine 2
// ("1") from testing.go; user code is in /m/x_test.go, position id = line (lines 1..99).
const testFile = "/m/x_test.go"

type builder struct {
	t     *trace.Trace
	stamp uint64
	gap   uint64   // extra stamps between events, to vary timestamps between runs
	edges [][2]int // extra happens-before edges (synchronization)
}

func newBuilder() *builder {
	b := &builder{t: &trace.Trace{Meta: map[string]string{}}}
	for line := 1; line < 100; line++ {
		b.t.Positions = append(b.t.Positions, trace.Position{File: testFile, Line: line})
	}
	b.t.Positions = append(b.t.Positions, trace.Position{File: "/go/src/testing/testing.go", Line: 1997}) // id 100
	b.add(trace.Event{Kind: trace.KindGoSpawn, G: 1, A: 2, Pos: 100})
	return b
}

// add appends a completed event (pre = post = next stamp unless set) and returns its index.
func (b *builder) add(e trace.Event) int {
	b.stamp += 1 + b.gap
	if e.Pre == 0 {
		e.Pre = b.stamp
	}
	if e.Post == 0 {
		e.Post = b.stamp
	}
	if e.Post == ^uint64(0) { // marker: never completed
		e.Post = 0
	}
	e.Index = len(b.t.Events)
	b.t.Events = append(b.t.Events, e)
	return e.Index
}

func (b *builder) spawn(parent, child uint64, line uint32) int {
	return b.add(trace.Event{Kind: trace.KindGoSpawn, G: parent, A: child, Pos: line})
}

func (b *builder) op(g uint64, k trace.Kind, obj uint64, line uint32) int {
	return b.add(trace.Event{Kind: k, G: g, Obj: obj, Pos: line})
}

// blocked appends an operation that never completed.
func (b *builder) blocked(g uint64, k trace.Kind, obj uint64, line uint32) int {
	return b.add(trace.Event{Kind: k, G: g, Obj: obj, Pos: line, Post: ^uint64(0)})
}

func (b *builder) send(g, ch uint64, line uint32, seq, fill, capacity uint64) int {
	return b.add(trace.Event{Kind: trace.KindChanSend, G: g, Obj: ch, Pos: line, A: seq, B: fill, C: capacity})
}

func (b *builder) recv(g, ch uint64, line uint32, seq uint64) int {
	return b.add(trace.Event{Kind: trace.KindChanRecv, G: g, Obj: ch, Pos: line, A: seq})
}

// hb declares that event i happens before event j (beyond program order and spawns).
func (b *builder) hb(i, j int) { b.edges = append(b.edges, [2]int{i, j}) }

// run returns the built trace with its happens-before relation: program order, spawn edges,
// the declared edges, transitively closed.
func (b *builder) run() *Run {
	n := len(b.t.Events)
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
	}
	last := map[uint64]int{}
	for i, e := range b.t.Events { // events are built in program order per goroutine
		if p, ok := last[e.G]; ok {
			m[p][i] = true
		}
		last[e.G] = i
	}
	for i, e := range b.t.Events {
		if e.Kind == trace.KindGoSpawn {
			for j := i + 1; j < n; j++ {
				if b.t.Events[j].G == e.A {
					m[i][j] = true
					break
				}
			}
		}
	}
	for _, e := range b.edges {
		m[e[0]][e[1]] = true
	}
	for k := range n {
		for i := range n {
			if m[i][k] {
				for j := range n {
					if m[k][j] {
						m[i][j] = true
					}
				}
			}
		}
	}
	return &Run{Trace: b.t, HB: matrixHB(m)}
}

type matrixHB [][]bool

func (m matrixHB) HappensBefore(i, j int) bool { return m[i][j] }
func (m matrixHB) Concurrent(i, j int) bool    { return i != j && !m[i][j] && !m[j][i] }

func pos(line int) schedule.Pos { return schedule.Pos{File: testFile, Line: line} }
