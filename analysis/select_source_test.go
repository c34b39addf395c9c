package analysis

import (
	"strconv"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A select whose receive is written before its send: the runtime records the send as case
// 0 (case 1 in messages) and the receive as case 1; the source calls them cases 2 and 1.
const mixedSelect = `package p

func forward(in <-chan int, out chan<- int) {
	stop := make(chan struct{}) // mark:stop
	for v := range in {
		select { // mark:select
		case <-stop: // mark:stopcase
			return
		case out <- v: // mark:outcase
		default:
		}
	}
}
`

func writeMixed(t *testing.T) (string, map[string]int) {
	t.Helper()
	return writeMarked(t, t.TempDir(), "m.go", mixedSelect)
}

func TestSourceCase(t *testing.T) {
	file, lines := writeMixed(t)
	for k, want := range []string{"outcase", "stopcase"} {
		n, line, text, ok := SourceCase(file, lines["select"], k, 2)
		if !ok || line != lines[want] || !strings.HasPrefix(text, "case ") || n != map[string]int{"stopcase": 1, "outcase": 2}[want] {
			t.Errorf("recorded case %d: n %d line %d %q ok %v, want the clause at line %d", k, n, line, text, ok, lines[want])
		}
	}
	if _, _, _, ok := SourceCase(file, lines["select"], 0, 3); ok {
		t.Error("a recording with 3 cases does not match a select with 2")
	}
	if _, _, _, ok := SourceCase(file, lines["stop"], 0, 2); ok {
		t.Error("no select on that line")
	}
}

// The dead receive case is named by its source number and text, not the runtime's index.
func TestSelectCaseWithoutPartnerNamesSourceCase(t *testing.T) {
	file, lines := writeMixed(t)
	at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
	b := tracetest.New()
	m := b.Main()
	in := m.MakeChan(0, file+":20")
	out := m.MakeChan(1, file+":21")
	w := m.Go(file + ":22")
	stop := w.MakeChan(0, at("stop"))
	for i := 0; i < 2; i++ {
		m.Send(in, file+":23")
		w.RecvOK(in, file+":5")
		w.Select(at("select"), 0, tracetest.SendCase(out), tracetest.RecvCase(stop))
		m.Recv(out, file+":24")
	}
	m.Close(in, file+":25")
	w.RecvOK(in, file+":5")
	w.End()
	r := analyze(t, b)
	f := want(t, r, "select-case-without-partner", Actual, "m.go:"+strconv.Itoa(lines["select"]))
	if !strings.HasPrefix(f.Message, "case 1 (`<-stop`, line "+strconv.Itoa(lines["stopcase"])+") of the select") {
		t.Errorf("message %q should name source case 1, case <-stop:", f.Message)
	}
}
