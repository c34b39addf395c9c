package runtimepatch

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// At its time limit a recording process armed with EnvTimeLimit answers TimeLimitSignal:
// it runs the GC's goroutine leak detection (Go 1.26 and later) and ends itself with
// SIGQUIT, its goroutine dump and its trace (META timelimit=1). The test goroutine's wait
// on a channel only it references is proven leaked; a receiver whose channel a sleeping
// goroutine still holds is not.
func TestTimeLimitLeakCheck(t *testing.T) {
	if e := os.Getenv(envEmulator); e != "" {
		// qemu-user maps the guest's real-time signals onto others of the host: the
		// host's signal 62 reaches the program as 60.
		t.Skipf("under %s a real-time signal does not reach the program as itself", e)
	}
	bin := buildLeakgc(t)
	// The stuck check would end the hang before the signal (its test goroutine leaks).
	r := record(t, bin, "TestTimeLimitHang", syscall.Signal(TimeLimitSignal), EnvTimeLimit+"="+strconv.Itoa(TimeLimitSignal), EnvStuck+"=0")
	m := r.tr.Meta
	if m["timelimit"] != "1" || m["exit"] != "signal" || m["signal"] != strconv.Itoa(int(syscall.SIGQUIT)) {
		t.Fatalf("META timelimit=%q exit=%q signal=%q, want 1, signal, %d (the process ends itself with SIGQUIT)\n%s",
			m["timelimit"], m["exit"], m["signal"], syscall.SIGQUIT, r.output)
	}
	if !strings.Contains(r.output, "SIGQUIT") || !strings.Contains(r.output, "TestTimeLimitHang") {
		t.Errorf("no goroutine dump in the output:\n%s", r.output)
	}
	marks := markersIn(t, "leakgc")
	status := map[string]uint32{} // marker -> status of the goroutine blocked there
	for _, ev := range r.tr.Events {
		for name, pos := range marks {
			if ev.Post == 0 && ev.Pos != 0 && r.tr.Position(ev.Pos).String() == pos {
				for _, g := range r.tr.Goroutines {
					if g.ID == ev.G {
						status[name] = g.Status
					}
				}
			}
		}
	}
	leak, linger := status["timelimit.leak"], status["timelimit.linger"]
	if !testdataRelease(t).LeakGC {
		if m["leakgc"] != "" || leak != 4 || linger != 4 {
			t.Errorf("leakgc=%q, statuses %d and %d; want no leak detection and both waiting (4)", m["leakgc"], leak, linger)
		}
		return
	}
	if m["leakgc"] != "1" || leak != 10 || linger != 4 {
		t.Errorf("leakgc=%q, the leaked receive's status %d, the lingering one's %d; want 1, 10 (leaked) and 4 (waiting)\n%s", m["leakgc"], leak, linger, dump(r.tr))
	}
}
