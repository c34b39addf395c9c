package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A timer's fire orders what its setters did before setting it (the make of its channel,
// which is its creation, and a Reset by another goroutine) before the receive that gets the
// fire's value; what they did after the set, or a Reset after the fire, stays concurrent
// with it.
func TestRuleTimerFire(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	w := m.Go("t.go:2")
	r := m.Go("t.go:3")
	c := m.MakeChan(8, "t.go:4")
	before := m.Send(c, "t.go:5")
	tm := m.MakeLibChan(1, "t.go:6") // time.NewTimer
	after := m.Send(c, "t.go:7")
	beforeReset := r.Send(c, "t.go:20")
	r.TimerSet(uint64(tm), "t.go:21", false)
	b.TimerFire(tm, "t.go:6")
	lateReset := r.Send(c, "t.go:22")
	r.TimerSet(uint64(tm), "t.go:23", false)
	recv := w.Recv(tm, "t.go:10")
	hb(t, b, [][2]*tracetest.Op{{before, recv}, {beforeReset, recv}}, [][2]*tracetest.Op{{after, recv}, {lateReset, recv}})
}

// A fire of a timer whose creation and sets were not recorded (made by code goweave does
// not record) orders nothing.
func TestRuleTimerFireUnset(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	w := m.Go("u.go:2")
	c := m.MakeChan(8, "u.go:4")
	before := m.Send(c, "u.go:5")
	tm := b.ForeignChan(1)
	b.TimerFire(tm, "u.go:6")
	recv := w.Recv(tm, "u.go:10")
	hb(t, b, nil, [][2]*tracetest.Op{{before, recv}})
}

// The goroutine an AfterFunc timer starts knows what the AfterFunc's caller did before it:
// a send before AfterFunc and a close in the function are ordered (no send-on-closed); what
// the caller does after AfterFunc is not.
func TestRuleTimerGo(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "f.go:3")
	send := m.Send(c, "f.go:4")
	tm := b.Timer()
	m.TimerSet(tm, "f.go:5", true) // time.AfterFunc(d, func() { close(c) })
	after := m.Send(m.MakeChan(1, "f.go:8"), "f.go:9")
	f := b.TimerGo(tm, "f.go:5")
	cl := f.Close(c, "f.go:6")
	f.End()
	m.End()
	hb(t, b, [][2]*tracetest.Op{{send, cl}}, [][2]*tracetest.Op{{after, cl}})
	wantNo(t, analyze(t, b), "send-on-closed")
}
