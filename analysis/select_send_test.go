package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const queueSource = `package q

type Q struct {
	input chan int
	stop  chan struct{}
}

func (q *Q) Unref() {
	close(q.input)
}

func (q *Q) Queue(v int) bool {
	select {
	case <-q.stop:
		return false
	case q.input <- v:
		return true
	}
}
`

// queueTrace records a run of queueSource in dir: Queue after Unref, the select's send
// case chosen on the closed channel (the panic a test may recover).
func queueTrace(t *testing.T, dir string) *Result {
	t.Helper()
	at := func(line string) string { return filepath.Join(dir, "q.go") + ":" + line }
	b := tracetest.New()
	m := b.Main()
	input := m.MakeChan(0, "q_test.go:5")
	stop := m.MakeChan(0, "q_test.go:6")
	m.Close(input, at("9"))
	m.Select(at("13"), 0, tracetest.SendCase(input), tracetest.RecvCase(stop))
	return analyze(t, b)
}

// A select whose send case panicked on a closed channel is a send-on-closed at the case's
// clause, like a plain send; the fingerprint does not depend on the source.
func TestSendOnClosedInSelect(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.go"), []byte(queueSource), 0o644); err != nil {
		t.Fatal(err)
	}
	f := want(t, queueTrace(t, dir), "send-on-closed", Actual, "q.go:16", "close=q.go:9")
	if !strings.HasPrefix(f.Message, "send on q.input at q.go:16 (case 2 of the select at line 13) panicked: the channel was closed at q.go:9") {
		t.Errorf("message %q", f.Message)
	}
	if p := f.Positions[0]; p.Role != "send" || p.Column != 2 {
		t.Errorf("send position %+v, want the clause's column 2", p)
	}
	if err := os.Remove(filepath.Join(dir, "q.go")); err != nil {
		t.Fatal(err)
	}
	g := want(t, queueTrace(t, dir), "send-on-closed", Actual, "q.go:13", "close=q.go:9")
	wantNo(t, queueTrace(t, dir), "select-case-without-partner")
	if g.Fingerprint != f.Fingerprint {
		t.Errorf("fingerprint %s without the source, %s with it", g.Fingerprint, f.Fingerprint)
	}
}
