package analysis

import (
	"strconv"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// negativeCheckSource is go-kit's sd/endpoint_cache_test.go shape (survey 8): after deleting
// instance b the test checks that b's endpoint is closed and a's is not; a's close comes
// later, when the test deletes a. The case on a is a negative check, not a dead case.
const negativeCheckSource = `package sd

import (
	"io"
	"testing"
)

type closer chan struct{}

func (c closer) Close() error { close(c); return nil }

func TestDelete(t *testing.T) {
	ca, cb := make(closer), make(closer) // mark:make
	go close(cb)
	select { // mark:select
	case <-ca:
		t.Errorf("endpoint a closed, not good")
	case <-cb:
		t.Logf("endpoint b closed, good")
	}
	byName := map[string]io.Closer{"a": ca}
	go byName["a"].Close()
	<-ca // mark:recv
}
`

// The same select whose case on a only logs: nothing says the test expects it not to fire.
// (A closer's Close is a method on a named channel type, which sourceMayServe does not
// follow, as in go-kit's test. The test's time.After case is left out: its channel is made
// outside the module.)
const deadCaseSource = `package sd

import (
	"io"
	"testing"
)

type closer chan struct{}

func (c closer) Close() error { close(c); return nil }

func TestDelete(t *testing.T) {
	ca, cb := make(closer), make(closer) // mark:make
	go close(cb)
	select { // mark:select
	case <-ca:
		t.Logf("endpoint a closed")
	case <-cb:
		t.Logf("endpoint b closed, good")
	}
	byName := map[string]io.Closer{"a": ca}
	go byName["a"].Close()
	<-ca // mark:recv
}
`

func TestSelectCaseNegativeCheck(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		finding   bool
	}{
		{"negative check", negativeCheckSource, false},
		{"dead case", deadCaseSource, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, lines := writeMarked(t, t.TempDir(), "cache_test.go", tc.src)
			at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
			b := tracetest.New()
			m := b.Main()
			ca := m.MakeChan(0, at("make"))
			cb := m.MakeChan(0, at("make"))
			g := m.Go(file + ":" + strconv.Itoa(lines["make"]+1))
			g.Close(cb, file+":"+strconv.Itoa(lines["make"]+1))
			g.End()
			m.Select(at("select"), 1, tracetest.RecvCase(ca), tracetest.RecvCase(cb))
			h := m.Go(file + ":" + strconv.Itoa(lines["recv"]-1))
			h.Close(ca, file+":"+strconv.Itoa(lines["recv"]-1))
			h.End()
			m.RecvBare(ca, at("recv"))
			r := analyze(t, b)
			if tc.finding {
				want(t, r, "select-case-without-partner", Actual, "cache_test.go:"+strconv.Itoa(lines["select"]))
			} else {
				wantNo(t, r, "select-case-without-partner")
			}
		})
	}
}
