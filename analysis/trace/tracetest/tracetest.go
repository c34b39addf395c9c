// Package tracetest builds traces by hand, in a DSL that reads like the program that would
// have produced them:
//
//	b := tracetest.New()
//	main := b.Main()
//	c := main.MakeChan(0, "a.go:5")
//	w := main.Go("a.go:6")
//	w.Send(c, "a.go:10")
//	main.Recv(c, "a.go:12")
//	tr := b.Trace()
//
// Operations are appended in completion order and stamped from one counter; the builder
// keeps channel, WaitGroup and Cond state so the kind-specific fields (sequence numbers,
// counters, tickets, the closed flag) come out as the runtime would write them.
// Pending() starts an operation that completes later (Complete) or never (a goroutine
// blocked at the end of the run).
package tracetest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// Dir is the directory file names are placed in, so positions look like absolute paths.
const Dir = "/src/m/"

// Builder accumulates one trace.
type Builder struct {
	t       trace.Trace
	stamp   uint64
	nextObj uint64
	nextG   uint64
	posIDs  map[string]uint32
	gs      []*G
	chans   map[uint64]*chanState
	wgs     map[uint64]int64
	conds   map[uint64]*condState
	onces   map[uint64]bool
}

type chanState struct {
	cap, sends, recvs int
	closed            bool
}

type condState struct {
	lock         uint64
	wait, notify uint64
}

// New returns an empty builder with META exit=exit, exitcode=0.
func New() *Builder {
	return &Builder{
		t:      trace.Trace{Meta: map[string]string{"exit": "exit", "exitcode": "0", "goversion": "go1.26.8", "module": "/src/m"}},
		posIDs: map[string]uint32{}, chans: map[uint64]*chanState{}, wgs: map[uint64]int64{},
		conds: map[uint64]*condState{}, onces: map[uint64]bool{}, nextG: 1,
	}
}

// Len returns the number of events built so far.
func (b *Builder) Len() int { return len(b.t.Events) }

// Meta sets a META key.
func (b *Builder) Meta(k, v string) *Builder { b.t.Meta[k] = v; return b }

// G is a goroutine of the trace.
type G struct {
	b       *Builder
	ID      uint64
	ended   bool
	pending bool // the next operation is started, not completed
	status  uint32
	reason  string
	parent  uint64
}

// Main returns the first goroutine (goid 1), creating it.
func (b *Builder) Main() *G {
	if len(b.gs) == 0 {
		b.gs = append(b.gs, &G{b: b, ID: 1})
		b.nextG = 2
	}
	return b.gs[0]
}

func (b *Builder) next() uint64 { b.stamp++; return b.stamp }

// Stamp is the last stamp issued, as the runtime reads its counter for a META mark
// (examplestart): every operation recorded so far has a stamp at most Stamp.
func (b *Builder) Stamp() uint64 { return b.stamp }

func (b *Builder) pos(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := b.posIDs[s]; ok {
		return id
	}
	file, line, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(line)
	if !ok || err != nil {
		panic(fmt.Sprintf("tracetest: position %q is not file:line", s))
	}
	if !strings.HasPrefix(file, "/") {
		file = Dir + file
	}
	b.t.Positions = append(b.t.Positions, trace.Position{File: file, Line: n, Column: 2, Func: "m.f"})
	id := uint32(len(b.t.Positions))
	b.posIDs[s] = id
	return id
}

// Op is a recorded operation; Complete finishes a pending one.
type Op struct {
	b     *Builder
	Index int
	done  func(e *trace.Event) // fills completion fields
}

// Event returns the operation's event as built so far.
func (o *Op) Event() *trace.Event { return &o.b.t.Events[o.Index] }

// Complete stamps the completion of a pending operation, now.
func (o *Op) Complete() *Op {
	e := o.Event()
	if e.Post != 0 {
		panic("tracetest: Complete of a completed operation")
	}
	e.Post = o.b.next()
	if o.done != nil {
		o.done(e)
	}
	return o
}

// Pending makes g's next operation start but not complete (until Complete).
func (g *G) Pending() *G { g.pending = true; return g }

func (g *G) op(k trace.Kind, pos string, e trace.Event, done func(e *trace.Event)) *Op {
	if g.ended {
		panic(fmt.Sprintf("tracetest: goroutine %d used after End", g.ID))
	}
	b := g.b
	e.Kind, e.G, e.Pos = k, g.ID, b.pos(pos)
	e.Pre = b.next()
	e.Index = len(b.t.Events)
	b.t.Events = append(b.t.Events, e)
	o := &Op{b: b, Index: e.Index, done: done}
	if g.pending {
		g.pending = false
		return o
	}
	ev := o.Event()
	ev.Post = ev.Pre
	if done != nil {
		done(ev)
	}
	return o
}

// Go spawns a goroutine at pos.
func (g *G) Go(pos string) *G {
	b := g.b
	child := &G{b: b, ID: b.nextG, parent: g.ID}
	b.nextG++
	b.gs = append(b.gs, child)
	g.op(trace.KindGoSpawn, pos, trace.Event{A: child.ID}, nil)
	return child
}

// GoLib spawns a goroutine the way a recorded library does for the user (a dependency's
// worker started inside the user's call at pos): a GoSpawn with the internal flag.
func (g *G) GoLib(pos string) *G {
	child := g.Go(pos)
	g.b.t.Events[len(g.b.t.Events)-1].Flags |= trace.FlagInternal
	return child
}

// End records that g exits.
func (g *G) End() { g.op(trace.KindGoEnd, "", trace.Event{}, nil); g.ended = true }

// State sets the status and wait reason g has in the GOROUTINES section (if it did not end).
func (g *G) State(status uint32, reason string) *G { g.status, g.reason = status, reason; return g }

// Chan is a channel object (0 = nil channel).
type Chan uint64

// NilChan is the nil channel.
const NilChan Chan = 0

func (b *Builder) obj() uint64 { b.nextObj++; return b.nextObj }

// MakeChan makes a channel with the given capacity.
func (g *G) MakeChan(capacity int, pos string) Chan {
	id := g.b.obj()
	g.b.chans[id] = &chanState{cap: capacity}
	g.op(trace.KindChanMake, pos, trace.Event{Obj: id, A: uint64(capacity)}, nil)
	return Chan(id)
}

// MakeLibChan makes a channel the way a recorded library does for the user (a context's
// Done channel, a timer's channel): a ChanMake with the internal flag.
func (g *G) MakeLibChan(capacity int, pos string) Chan {
	id := g.b.obj()
	g.b.chans[id] = &chanState{cap: capacity}
	g.op(trace.KindChanMake, pos, trace.Event{Obj: id, A: uint64(capacity), Flags: trace.FlagInternal}, nil)
	return Chan(id)
}

// SendForeign sends on c from code that is not recorded (the runtime firing a timer): the
// next receive gets the value, and no event is written.
func (b *Builder) SendForeign(c Chan) { b.ch(c).sends++ }

// TimerFire is the runtime delivering a value on timer channel c (made at pos, by
// NewTimer, NewTicker or After): a TimerFire event of no goroutine, with the seq of the
// receive that will get the value.
func (b *Builder) TimerFire(c Chan, pos string) *Op {
	s := b.ch(c)
	s.sends++
	e := trace.Event{Kind: trace.KindTimerFire, Flags: trace.FlagInternal, Pos: b.pos(pos), Obj: uint64(c),
		A: uint64(s.sends), C: uint64(s.cap), Index: len(b.t.Events)}
	if n := s.sends - s.recvs; n > 0 && s.cap > 0 {
		e.B = uint64(min(n, s.cap))
	}
	e.Pre = b.next()
	e.Post = e.Pre
	b.t.Events = append(b.t.Events, e)
	return &Op{b: b, Index: e.Index}
}

// Timer returns a new AfterFunc timer's object id (a channel timer's object is its channel).
func (b *Builder) Timer() uint64 { return b.obj() }

// TimerSet is g setting timer obj (a Chan's id for a channel timer) at pos: the creation of
// an AfterFunc timer when created, else a Reset (a channel timer's creation is the make of
// its channel).
func (g *G) TimerSet(obj uint64, pos string, created bool) *Op {
	e := trace.Event{Obj: obj, Flags: trace.FlagInternal}
	if created {
		e.A = 1
	}
	return g.op(trace.KindTimerSet, pos, e, nil)
}

// TimerGo is AfterFunc timer obj firing: the runtime starts the timer's function in a new
// goroutine (a GoSpawn of no goroutine, at the AfterFunc call pos).
func (b *Builder) TimerGo(obj uint64, pos string) *G {
	child := &G{b: b, ID: b.nextG}
	b.nextG++
	b.gs = append(b.gs, child)
	e := trace.Event{Kind: trace.KindGoSpawn, Flags: trace.FlagInternal, Pos: b.pos(pos), Obj: obj, A: child.ID, Index: len(b.t.Events)}
	e.Pre = b.next()
	e.Post = e.Pre
	b.t.Events = append(b.t.Events, e)
	return child
}

// ForeignChan returns a channel made outside user code (no ChanMake event), like
// a context's Done channel.
func (b *Builder) ForeignChan(capacity int) Chan {
	id := b.obj()
	b.chans[id] = &chanState{cap: capacity}
	return Chan(id)
}

// CloseForeign marks a foreign channel closed by code that is not recorded (a context's
// cancel function): receives then see it closed, and no event is written.
func (b *Builder) CloseForeign(c Chan) { b.ch(c).closed = true }

func (b *Builder) ch(c Chan) *chanState {
	if s := b.chans[uint64(c)]; s != nil {
		return s
	}
	return &chanState{}
}

// sendDone fills a completed send: seq, buffer count, closed flag.
func (b *Builder) sendDone(c Chan, e *trace.Event) {
	s := b.ch(c)
	e.C = uint64(s.cap)
	if c == NilChan {
		e.Flags |= trace.FlagNilChan
		return
	}
	if s.closed {
		e.Flags |= trace.FlagClosed
		return
	}
	s.sends++
	e.A = uint64(s.sends)
	if n := s.sends - s.recvs; n > 0 && s.cap > 0 {
		e.B = uint64(min(n, s.cap))
	}
}

// recvDone fills a completed receive; it reports whether it saw the channel closed.
func (b *Builder) recvDone(c Chan, e *trace.Event) bool {
	s := b.ch(c)
	e.C = uint64(s.cap)
	if c == NilChan {
		e.Flags |= trace.FlagNilChan
		return false
	}
	if s.recvs >= s.sends && s.closed {
		e.Flags |= trace.FlagClosed
		return true
	}
	s.recvs++
	e.A = uint64(s.recvs)
	if s.cap > 0 {
		e.B = uint64(max(s.sends-s.recvs, 0))
	}
	return false
}

// Send sends on c.
func (g *G) Send(c Chan, pos string) *Op {
	e := trace.Event{Obj: uint64(c)}
	if c == NilChan {
		e.Flags = trace.FlagNilChan
	}
	return g.op(trace.KindChanSend, pos, e, func(e *trace.Event) { g.b.sendDone(c, e) })
}

func (g *G) recv(c Chan, pos string, f trace.Flags) *Op {
	e := trace.Event{Obj: uint64(c), Flags: f}
	if c == NilChan {
		e.Flags |= trace.FlagNilChan
	}
	return g.op(trace.KindChanRecv, pos, e, func(e *trace.Event) { g.b.recvDone(c, e) })
}

// Recv is a value receive, v := <-c.
func (g *G) Recv(c Chan, pos string) *Op { return g.recv(c, pos, trace.FlagValueUsed) }

// RecvBare is <-c with the value dropped (a signal wait).
func (g *G) RecvBare(c Chan, pos string) *Op { return g.recv(c, pos, 0) }

// RecvOK is v, ok := <-c; also one iteration of for v := range c.
func (g *G) RecvOK(c Chan, pos string) *Op {
	return g.recv(c, pos, trace.FlagValueUsed|trace.FlagCommaOK)
}

// Close closes c.
func (g *G) Close(c Chan, pos string) *Op {
	e := trace.Event{Obj: uint64(c)}
	if c == NilChan {
		e.Flags = trace.FlagNilChan
	}
	return g.op(trace.KindChanClose, pos, e, func(e *trace.Event) {
		if c == NilChan {
			return
		}
		s := g.b.ch(c)
		if s.closed {
			e.Flags |= trace.FlagClosed
		}
		s.closed = true
	})
}

// SendCase and RecvCase describe select cases; RecvValueCase is case v := <-c.
func SendCase(c Chan) trace.Case      { return trace.Case{Obj: uint64(c), Send: true} }
func RecvCase(c Chan) trace.Case      { return trace.Case{Obj: uint64(c)} }
func RecvValueCase(c Chan) trace.Case { return trace.Case{Obj: uint64(c), ValueUsed: true} }

// Default is the chosen index of a select that takes its default case.
const Default = -1

// Select records a select over cases (in the runtime's order: sends first) that chose case chosen
// (Default: the default case; the select then has one).
func (g *G) Select(pos string, chosen int, cases ...trace.Case) *Op {
	cs := make([]trace.Case, len(cases))
	for i, c := range cases {
		c.Index = i
		cs[i] = c
	}
	e := trace.Event{Cases: cs, Aux: uint16(len(cs)), A: trace.SelectDefault}
	if chosen == Default {
		e.Flags |= trace.FlagNonBlocking
	}
	return g.op(trace.KindSelect, pos, e, func(e *trace.Event) {
		if chosen == Default {
			return
		}
		c := cs[chosen]
		e.A = uint64(chosen)
		if c.Send && c.Obj != 0 && g.b.ch(Chan(c.Obj)).closed {
			e.Flags |= trace.FlagClosed // the select panicked: send on closed channel
			return
		}
		e.Flags |= trace.FlagSuccess
		var tmp trace.Event
		if c.Send {
			g.b.sendDone(Chan(c.Obj), &tmp)
		} else if g.b.recvDone(Chan(c.Obj), &tmp) {
			e.Flags |= trace.FlagClosed
		}
		e.B = tmp.A
	})
}

// AtomicLoad, AtomicStore and AtomicRMW are operations on the typed atomic value at addr.
func (g *G) AtomicLoad(addr uint64, pos string) *Op {
	return g.op(trace.KindAtomicLoad, pos, trace.Event{A: addr}, nil)
}
func (g *G) AtomicStore(addr uint64, pos string) *Op {
	return g.op(trace.KindAtomicStore, pos, trace.Event{A: addr}, nil)
}
func (g *G) AtomicRMW(addr uint64, pos string) *Op {
	return g.op(trace.KindAtomicRMW, pos, trace.Event{A: addr}, nil)
}

// Mutex is a sync.Mutex or sync.RWMutex object.
type Mutex struct {
	ID uint64
	RW bool
}

// Mutex and RWMutex create sync objects.
func (b *Builder) Mutex() Mutex   { return Mutex{ID: b.obj()} }
func (b *Builder) RWMutex() Mutex { return Mutex{ID: b.obj(), RW: true} }

func (m Mutex) rw() trace.Flags {
	if m.RW {
		return trace.FlagRW
	}
	return 0
}

// Lock, Unlock, RLock, RUnlock record the mutex operations.
func (g *G) Lock(m Mutex, pos string) *Op {
	return g.op(trace.KindLock, pos, trace.Event{Obj: m.ID, Flags: m.rw()}, nil)
}
func (g *G) Unlock(m Mutex, pos string) *Op {
	return g.op(trace.KindUnlock, pos, trace.Event{Obj: m.ID, Flags: m.rw()}, nil)
}
func (g *G) RLock(m Mutex, pos string) *Op {
	return g.op(trace.KindRLock, pos, trace.Event{Obj: m.ID, Flags: trace.FlagRW}, nil)
}
func (g *G) RUnlock(m Mutex, pos string) *Op {
	return g.op(trace.KindRUnlock, pos, trace.Event{Obj: m.ID, Flags: trace.FlagRW}, nil)
}

// TryLock records a TryLock that acquired the mutex or not.
func (g *G) TryLock(m Mutex, pos string, acquired bool) *Op {
	f := m.rw() | trace.FlagNonBlocking
	if acquired {
		f |= trace.FlagSuccess
	}
	return g.op(trace.KindTryLock, pos, trace.Event{Obj: m.ID, Flags: f}, nil)
}

// Once is a sync.Once.
type Once uint64

func (b *Builder) Once() Once { return Once(b.obj()) }

// OnceDo records o.Do; the first Do on o runs f.
func (g *G) OnceDo(o Once, pos string) *Op {
	e := trace.Event{Obj: uint64(o)}
	if !g.b.onces[uint64(o)] {
		g.b.onces[uint64(o)] = true
		e.Flags = trace.FlagSuccess
	}
	return g.op(trace.KindOnceDo, pos, e, nil)
}

// WaitGroup is a sync.WaitGroup.
type WaitGroup uint64

func (b *Builder) WaitGroup() WaitGroup { return WaitGroup(b.obj()) }

// Add records wg.Add(delta).
func (g *G) Add(wg WaitGroup, delta int64, pos string) *Op {
	n := g.b.wgs[uint64(wg)] + delta
	g.b.wgs[uint64(wg)] = n
	return g.op(trace.KindWgAdd, pos, trace.Event{Obj: uint64(wg), A: uint64(delta), B: uint64(n)}, nil)
}

// Done records wg.Done().
func (g *G) Done(wg WaitGroup, pos string) *Op {
	n := g.b.wgs[uint64(wg)] - 1
	g.b.wgs[uint64(wg)] = n
	return g.op(trace.KindWgDone, pos, trace.Event{Obj: uint64(wg), A: uint64(^uint64(0)), B: uint64(n)}, nil)
}

// Wait records wg.Wait().
func (g *G) Wait(wg WaitGroup, pos string) *Op {
	return g.op(trace.KindWgWait, pos, trace.Event{Obj: uint64(wg), B: uint64(g.b.wgs[uint64(wg)])}, nil)
}

// Cond is a sync.Cond over a Mutex.
type Cond struct {
	ID uint64
	L  Mutex
}

func (b *Builder) Cond(l Mutex) Cond {
	c := Cond{ID: b.obj(), L: l}
	b.conds[c.ID] = &condState{lock: l.ID}
	return c
}

// CondWait starts c.Wait(): it unlocks L (internal), takes a ticket, and is pending until
// Complete, which re-locks L (internal). Without Complete the waiter is blocked at the end.
func (g *G) CondWait(c Cond, pos string) *Op {
	s := g.b.conds[c.ID]
	g.op(trace.KindUnlock, pos, trace.Event{Obj: c.L.ID, Flags: c.L.rw() | trace.FlagInternal}, nil)
	ticket := s.wait
	s.wait++
	g.pending = true
	o := g.op(trace.KindCondWait, pos, trace.Event{Obj: c.ID, A: ticket, B: c.L.ID}, nil)
	o.done = func(*trace.Event) {
		g.op(trace.KindLock, pos, trace.Event{Obj: c.L.ID, Flags: c.L.rw() | trace.FlagInternal}, nil)
	}
	return o
}

// Signal wakes the longest waiting waiter, if any.
func (g *G) Signal(c Cond, pos string) *Op {
	s := g.b.conds[c.ID]
	e := trace.Event{Obj: c.ID, A: s.notify, B: s.wait}
	if s.notify < s.wait {
		s.notify++
	}
	return g.op(trace.KindCondSignal, pos, e, nil)
}

// Broadcast wakes every waiter.
func (g *G) Broadcast(c Cond, pos string) *Op {
	s := g.b.conds[c.ID]
	e := trace.Event{Obj: c.ID, A: s.notify, B: s.wait}
	s.notify = s.wait
	return g.op(trace.KindCondBroadcast, pos, e, nil)
}

// Trace returns the trace built so far, with a GOROUTINES section listing every goroutine
// that did not End: status waiting with the blocked operation's wait reason if its last
// operation is pending, else runnable (or what State set).
func (b *Builder) Trace() *trace.Trace {
	t := b.t
	t.Events = append([]trace.Event(nil), b.t.Events...)
	t.Goroutines = nil
	last := map[uint64]int{}
	for i, e := range t.Events {
		last[e.G] = i
	}
	for _, g := range b.gs {
		if g.ended {
			continue
		}
		gr := trace.Goroutine{ID: g.ID, Status: 1, LastEvent: -1, Parent: g.parent}
		if i, ok := last[g.ID]; ok {
			gr.LastEvent = i
			if e := t.Events[i]; e.Post == 0 {
				gr.Status, gr.WaitReason = 4, waitReason(e)
			}
		}
		if g.status != 0 {
			gr.Status, gr.WaitReason = g.status, g.reason
		}
		t.Goroutines = append(t.Goroutines, gr)
	}
	t.Meta = map[string]string{}
	for k, v := range b.t.Meta {
		t.Meta[k] = v
	}
	t.Meta["stamp"] = strconv.FormatUint(b.stamp, 10)
	return &t
}

func waitReason(e trace.Event) string {
	switch e.Kind {
	case trace.KindChanSend:
		if e.Obj == 0 {
			return "chan send (nil chan)"
		}
		return "chan send"
	case trace.KindChanRecv:
		if e.Obj == 0 {
			return "chan receive (nil chan)"
		}
		return "chan receive"
	case trace.KindSelect:
		return "select"
	case trace.KindLock, trace.KindRLock:
		return "sync.Mutex.Lock"
	case trace.KindWgWait:
		return "sync.WaitGroup.Wait"
	case trace.KindCondWait:
		return "sync.Cond.Wait"
	}
	return ""
}

// Bytes returns the encoded trace.
func (b *Builder) Bytes() []byte {
	var buf bytes.Buffer
	if err := trace.Encode(&buf, b.Trace()); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
