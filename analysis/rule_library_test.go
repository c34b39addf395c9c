package analysis

import (
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// internal marks an operation as a library's, made on the user's behalf (FlagInternal).
func internal(o *tracetest.Op) *tracetest.Op {
	o.Event().Flags |= trace.FlagInternal
	return o
}

// A client library's Dial (user line t.go:10) makes a channel and starts two goroutines:
// one closes the channel as a signal, the other receives a value from it. Every operation
// is the library's and all are attributed to the Dial line: no recv-on-closed with both
// ends on that line. The same pair by the user's own code is reported.
func TestLibraryPairDropped(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeLibChan(0, "t.go:10")
	resolver, balancer := m.GoLib("t.go:10"), m.GoLib("t.go:10")
	internal(resolver.Close(c, "t.go:10"))
	internal(balancer.Recv(c, "t.go:10"))
	wantNo(t, analyze(t, b), "recv-on-closed")

	// The library's goroutine receives; the close is inside the user's Close call at
	// another line: still the library's own signal.
	b = tracetest.New()
	m = b.Main()
	c = m.MakeLibChan(0, "t.go:10")
	balancer = m.GoLib("t.go:10")
	internal(m.Close(c, "t.go:12"))
	internal(balancer.Recv(c, "t.go:10"))
	wantNo(t, analyze(t, b), "recv-on-closed")

	// The user's own close and receive: reported.
	b = tracetest.New()
	m = b.Main()
	c = m.MakeChan(0, "t.go:10")
	g := m.Go("t.go:11")
	g.Close(c, "t.go:12")
	m.Recv(c, "t.go:13")
	want(t, analyze(t, b), "recv-on-closed", Actual, "t.go:13", "close=t.go:12")

	// Two of the user's goroutines each call the library's Close (t.go:20, t.go:21): a
	// library's operations, but the user's calls, on the user's goroutines: reported there.
	b = tracetest.New()
	m = b.Main()
	c = m.MakeLibChan(0, "t.go:10")
	g1, g2 := m.Go("t.go:19"), m.Go("t.go:19")
	internal(g1.Close(c, "t.go:20"))
	internal(g2.Close(c, "t.go:21"))
	want(t, analyze(t, b), "close-of-closed", Actual, "t.go:21", "first close=t.go:20")
}
