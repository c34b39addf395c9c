package runtimepatch

import (
	"sort"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// TestRecorderInvariantsUnderStress checks, on a trace of many goroutines
// racing over channels, selects and mutexes, what must hold for every
// trace: unique stamps, pre <= post, per-channel sequence numbers 1..n with
// the k-th receive completing after the k-th send, and every mutex's lock
// and unlock stamps alternating.
func TestRecorderInvariantsUnderStress(t *testing.T) {
	bin := buildEvents(t, false)
	for run := range 3 {
		r := record(t, bin, "TestStress", nil)
		if r.err != nil {
			t.Fatalf("run %d: %v\n%s", run, r.err, r.output)
		}
		checkInvariants(t, r.tr)
	}
}

type chanOp struct {
	send bool
	seq  uint64
	post uint64
}

func checkInvariants(t *testing.T, tr *trace.Trace) {
	t.Helper()
	if tr.Meta["dropped"] != "0" {
		t.Fatalf("dropped %s events", tr.Meta["dropped"])
	}
	// Channels made by user code: all their operations are recorded (a timer's channel,
	// made by package time for the user, is fed by the runtime's unrecorded sends).
	userChans := map[uint64]bool{}
	for _, e := range tr.Events {
		if e.Kind == trace.KindChanMake && !e.Flags.Has(trace.FlagInternal) {
			userChans[e.Obj] = true
		}
	}
	stamps := map[uint64]int{}
	ops := map[uint64][]chanOp{}     // channel -> completed operations
	locks := map[uint64][]lockStep{} // mutex -> lock/unlock stamps
	for _, e := range tr.Events {
		if e.Kind == 0 {
			t.Errorf("empty record %d in a trace of a process that exited normally", e.Index)
		}
		stamps[e.Pre]++
		if e.Post != 0 && e.Post != e.Pre {
			stamps[e.Post]++
		}
		switch e.Kind {
		case trace.KindChanSend, trace.KindChanRecv:
			if e.Post != 0 && e.A != 0 {
				ops[e.Obj] = append(ops[e.Obj], chanOp{e.Kind == trace.KindChanSend, e.A, e.Post})
			}
		case trace.KindSelect:
			if e.A != trace.SelectDefault && e.B != 0 {
				c := e.Cases[e.A]
				ops[c.Obj] = append(ops[c.Obj], chanOp{c.Send, e.B, e.Post})
			}
		case trace.KindLock, trace.KindRLock:
			if e.Post != 0 {
				locks[e.Obj] = append(locks[e.Obj], lockStep{e.Post, e.Kind, e.G})
			}
		case trace.KindTryLock:
			if e.Flags.Has(trace.FlagSuccess) {
				locks[e.Obj] = append(locks[e.Obj], lockStep{e.Post, trace.KindLock, e.G})
			}
		case trace.KindUnlock, trace.KindRUnlock:
			locks[e.Obj] = append(locks[e.Obj], lockStep{e.Pre, e.Kind, e.G})
		}
	}
	for s, n := range stamps {
		if n > 1 {
			t.Errorf("stamp %d used %d times", s, n)
		}
	}
	for obj, list := range ops {
		if !userChans[obj] {
			continue // e.g. time.After: the runtime's sends are not recorded
		}
		sends := map[uint64]uint64{}
		recvs := map[uint64]uint64{}
		for _, op := range list {
			m := recvs
			if op.send {
				m = sends
			}
			if _, dup := m[op.seq]; dup {
				t.Errorf("chan %d: two completed %s with seq %d", obj, dir(op.send), op.seq)
			}
			m[op.seq] = op.post
		}
		for k := uint64(1); k <= uint64(len(sends)); k++ {
			if _, ok := sends[k]; !ok {
				t.Errorf("chan %d: sends 1..%d lack seq %d", obj, len(sends), k)
			}
		}
		for k, post := range recvs {
			sp, ok := sends[k]
			if !ok {
				t.Errorf("chan %d: receive %d without send %d", obj, k, k)
			} else if !(sp < post) {
				t.Errorf("chan %d: receive %d completed at %d, before its send at %d", obj, k, post, sp)
			}
		}
	}
	for obj, steps := range locks {
		sort.Slice(steps, func(i, j int) bool { return steps[i].stamp < steps[j].stamp })
		readers, writer := 0, false
		for _, s := range steps {
			switch s.kind {
			case trace.KindLock:
				if writer || readers > 0 {
					t.Errorf("mutex %d: Lock by g%d at %d while held (writer %v, readers %d)", obj, s.g, s.stamp, writer, readers)
				}
				writer = true
			case trace.KindUnlock:
				writer = false
			case trace.KindRLock:
				if writer {
					t.Errorf("mutex %d: RLock by g%d at %d while write-locked", obj, s.g, s.stamp)
				}
				readers++
			case trace.KindRUnlock:
				readers--
			}
		}
	}
}

type lockStep struct {
	stamp uint64
	kind  trace.Kind
	g     uint64
}

func dir(send bool) string {
	if send {
		return "sends"
	}
	return "receives"
}
