package runtimepatch

import (
	"os"
	"syscall"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Each way a test process can end must leave a complete trace (the reader
// rejects a trace without END), with META saying how it ended and the
// goroutines still alive.

func TestExitPaths(t *testing.T) {
	bin := buildEvents(t, false)
	cases := []struct {
		test, marker string
		sig          os.Signal
		meta         map[string]string
		blocked      string // wait reason of the goroutine blocked at marker; "" = the op completed
	}{
		{"TestExitFail", "exit.fail", nil, map[string]string{"exit": "exit", "exitcode": "1"}, ""},
		{"TestExitOsExit", "exit.osexit", nil, map[string]string{"exit": "exit", "exitcode": "3"}, ""},
		{"TestExitPanic", "exit.panic", nil, map[string]string{"exit": "panic", "message": "boom on purpose"}, ""},
		{"TestExitDeadlock", "exit.deadlock", nil, map[string]string{"exit": "deadlock", "message": "all goroutines are asleep - deadlock!"}, "chan receive"},
		{"TestExitSignal", "exit.signal", syscall.SIGQUIT, map[string]string{"exit": "signal", "signal": "3"}, "chan receive"},
		{"TestExitSignal", "exit.signal", syscall.SIGTERM, map[string]string{"exit": "signal", "signal": "15"}, "chan receive"},
		{"TestExitSignal", "exit.signal", syscall.SIGINT, map[string]string{"exit": "signal", "signal": "2"}, "chan receive"},
	}
	for _, c := range cases {
		name := c.test
		if c.sig != nil {
			name += "/" + c.sig.String()
		}
		t.Run(name, func(t *testing.T) {
			r := record(t, bin, c.test, c.sig)
			if r.err == nil {
				t.Fatalf("process succeeded:\n%s", r.output)
			}
			for k, v := range c.meta {
				if got := r.tr.Meta[k]; got != v {
					t.Errorf("META %s = %q, want %q", k, got, v)
				}
			}
			for _, k := range []string{"goversion", "goos", "goarch", "pid", "module", "dropped", "stamp"} {
				if r.tr.Meta[k] == "" {
					t.Errorf("META %s missing", k)
				}
			}
			if r.tr.Meta["dropped"] != "0" {
				t.Errorf("dropped = %s", r.tr.Meta["dropped"])
			}
			if s, ok := c.sig.(syscall.Signal); ok && s != syscall.SIGQUIT && exitSignal(r.err) != s {
				t.Errorf("process ended with %v, want killed by %v", r.err, s)
			}
			evs := at(t, r.tr, trace.KindChanSend, c.marker)
			evs = append(evs, at(t, r.tr, trace.KindChanRecv, c.marker)...)
			if len(evs) != 1 {
				t.Fatalf("%d channel events at @%s, want 1\n%s", len(evs), c.marker, dump(r.tr))
			}
			e := evs[0]
			if c.blocked == "" {
				if e.Post == 0 {
					t.Errorf("the send before the exit did not complete")
				}
				return
			}
			if e.Post != 0 {
				t.Errorf("the blocked receive completed at %d", e.Post)
			}
			for _, g := range r.tr.Goroutines {
				if g.ID == e.G {
					if g.WaitReason != c.blocked || g.LastEvent != e.Index {
						t.Errorf("blocked goroutine: reason %q last event %d, want %q %d", g.WaitReason, g.LastEvent, c.blocked, e.Index)
					}
					return
				}
			}
			t.Errorf("blocked goroutine g%d not in GOROUTINES\n%s", e.G, dump(r.tr))
		})
	}
}
