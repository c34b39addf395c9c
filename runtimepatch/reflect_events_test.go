package runtimepatch

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Package reflect's channel operations are recorded like the compiled ones, at
// the user's call of reflect (zz_goweave_reflect.go): before, none of them was,
// and the plain receive whose partner was a reflect.Select send had none.
func TestReflectChanEvents(t *testing.T) {
	tr := record(t, buildEvents(t, false), "TestReflectChan", nil).tr
	mk := one(t, tr, trace.KindChanMake, "reflect.make")
	send := one(t, tr, trace.KindChanSend, "reflect.send")
	recv := one(t, tr, trace.KindChanRecv, "reflect.recv")
	if send.Obj != mk.Obj || recv.Obj != mk.Obj || send.A != 1 || recv.A != 1 || send.Post == 0 || recv.Post == 0 {
		t.Errorf("Send %+v, Recv %+v: want both on chan %d, seq 1, completed", send, recv, mk.Obj)
	}
	if recv.Flags != trace.FlagValueUsed|trace.FlagCommaOK || send.Flags != 0 {
		t.Errorf("Recv flags %s, Send flags %s; want valueused|commaok (Recv reports ok) and none", recv.Flags, send.Flags)
	}

	// The selects that took the default are recorded too; the one that sent
	// is the partner of the plain receive.
	var sent *trace.Event
	sels := at(t, tr, trace.KindSelect, "reflect.select")
	for i := range sels {
		s := &sels[i]
		if !s.Flags.Has(trace.FlagNonBlocking) || len(s.Cases) != 2 {
			t.Fatalf("reflect.Select: flags %s, %d cases; want nonblocking (it has a default), 2 cases", s.Flags, len(s.Cases))
		}
		if !s.Cases[0].Send || s.Cases[0].Obj != mk.Obj || s.Cases[1].Send || s.Cases[1].Obj != 0 {
			t.Errorf("reflect.Select cases %+v: want the send on chan %d, then the receive on the nil channel", s.Cases, mk.Obj)
		}
		if s.A == 0 {
			sent = s
		}
	}
	if sent == nil || !sent.Flags.Has(trace.FlagSuccess) || sent.B != 2 {
		t.Fatalf("no reflect.Select chose its send case with seq 2\n%s", dump(tr))
	}
	plain := one(t, tr, trace.KindChanRecv, "reflect.plainrecv")
	if plain.Obj != mk.Obj || plain.A != 2 || plain.Flags.Has(trace.FlagClosed) {
		t.Errorf("plain receive: obj %d seq %d flags %s, want chan %d seq 2 (the select's send)", plain.Obj, plain.A, plain.Flags, mk.Obj)
	}

	ts := one(t, tr, trace.KindSelect, "reflect.trysend")
	tv := one(t, tr, trace.KindSelect, "reflect.tryrecv")
	for _, s := range []trace.Event{ts, tv} {
		if s.A != 0 || s.Flags != trace.FlagNonBlocking|trace.FlagSuccess || len(s.Cases) != 1 || s.Cases[0].Obj == 0 {
			t.Errorf("TrySend/TryRecv: %+v, want a one-case select with a default that chose its case", s)
		}
	}
	if len(ts.Cases) == 1 && len(tv.Cases) == 1 && (!ts.Cases[0].Send || tv.Cases[0].Send || !tv.Cases[0].ValueUsed || ts.Cases[0].Obj != tv.Cases[0].Obj) {
		t.Errorf("TrySend case %+v, TryRecv case %+v: want a send and a value receive on one channel", ts.Cases[0], tv.Cases[0])
	}

	cl := one(t, tr, trace.KindChanClose, "reflect.close")
	sc := one(t, tr, trace.KindSelect, "reflect.selectclosed")
	if cl.Obj != mk.Obj || cl.Flags != 0 {
		t.Errorf("Close: obj %d flags %s, want chan %d", cl.Obj, cl.Flags, mk.Obj)
	}
	if sc.A != 0 || !sc.Flags.Has(trace.FlagClosed|trace.FlagSuccess) || sc.Flags.Has(trace.FlagNonBlocking) {
		t.Errorf("reflect.Select on the closed channel: chose %d flags %s, want case 0 closed|success, blocking", int64(sc.A), sc.Flags)
	}
	for _, e := range tr.Events {
		if p := tr.Position(e.Pos); e.Pos != 0 && !strings.HasSuffix(p.File, "_test.go") {
			t.Errorf("%s attributed to %s:%d, outside the user's files", e.Kind, p.File, p.Line)
		}
		if e.Flags.Has(trace.FlagInternal) {
			t.Errorf("%s at %s has the internal flag: the test called reflect itself", e.Kind, tr.Position(e.Pos))
		}
	}
}
