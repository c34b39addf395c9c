package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// atomicFlag builds the atomicflag example: a producer sends, then stores a flag; the owner
// loads it (after spinning) and closes the channel. With the flag's address the same on
// both sides the Store orders the send before the close.
func atomicFlag(storeAddr, loadAddr uint64) *tracetest.Builder {
	b := tracetest.New()
	m := b.Main()
	results := m.MakeChan(8, "a.go:30")
	p := m.Go("a.go:31")
	p.Send(results, "a.go:23")
	p.AtomicStore(storeAddr, "a.go:26")
	p.End()
	m.AtomicLoad(loadAddr, "a.go:32")
	m.Close(results, "a.go:38")
	m.End()
	return b
}

// An atomic Store observed by a Load publishes what came before it: the send before the
// flag is ordered before the close after it (no predicted send-on-closed).
func TestAtomicFlagOrders(t *testing.T) {
	wantNo(t, analyze(t, atomicFlag(0xc000012345, 0xc000012345)), "send-on-closed")
}

// Atomics on different addresses order nothing: the prediction stays.
func TestAtomicOtherAddressNoOrder(t *testing.T) {
	want(t, analyze(t, atomicFlag(0xc000012345, 0xc000099999)), "send-on-closed", Predicted, "a.go:23")
}

// A read-modify-write both acquires and releases: a counter incremented by a worker after
// its send and by the owner before its close orders the two.
func TestAtomicRMWOrders(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "r.go:1")
	w := m.Go("r.go:2")
	w.Send(c, "r.go:3")
	w.AtomicRMW(0x1000, "r.go:4")
	w.End()
	m.AtomicRMW(0x1000, "r.go:5")
	m.Close(c, "r.go:6")
	m.End()
	wantNo(t, analyze(t, b), "send-on-closed")
}
