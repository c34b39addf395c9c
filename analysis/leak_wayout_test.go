package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const wayOutPkg = `package p

type Batcher struct {
	input   chan int
	batches chan []int
}

func New() *Batcher {
	b := &Batcher{input: make(chan int), batches: make(chan []int, 1)}
	go b.run()
	return b
}

func (b *Batcher) run() {
	for v := range b.input {
		b.batches <- []int{v}
	}
}

func (b *Batcher) Close() { close(b.input) }

func background() { New() }
`

const wayOutTest = `package p

import "testing"

func TestBatcher(t *testing.T) {
	b := New()
	_ = b
}
`

// A goroutine of a type waits for the close its Close method makes; the test made the
// object and never called Close. The leak names the close that never ran and where the
// channel was made, and is the test's (test-only, a warning). Made by the package's own
// goroutine instead, it stays the package's leak (an error), still naming the close.
func TestLeakNamesTheCloseThatNeverRan(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(wayOutPkg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(wayOutTest), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(line string) string { return filepath.Join(dir, "p.go") + ":" + line }
	for _, byTest := range []bool{true, false} {
		b := tracetest.New().Meta("testgoid", "1")
		m := b.Main()
		maker := m
		if !byTest {
			maker = m.Go(at("22"))
		}
		input := maker.MakeChan(0, at("9"))
		maker.MakeChan(1, at("9"))
		w := maker.Go(at("10"))
		w.Pending().Recv(input, at("15"))
		if !byTest {
			maker.End()
		}
		m.End()
		r := analyze(t, b)
		f := want(t, r, "leak-chan", Actual, "p.go:15", "made=p.go:9", "close that never ran=p.go:20")
		for _, s := range []string{"close(b.input) at p.go:20 in (*Batcher).Close, never ran in this run", "made at p.go:9 in New"} {
			if !strings.Contains(f.Message, s) {
				t.Errorf("by test %v: message %q lacks %q", byTest, f.Message, s)
			}
		}
		wantSev := map[bool]Severity{true: SeverityWarning, false: SeverityError}[byTest]
		if f.TestOnly != byTest || f.Severity != wantSev || strings.Contains(f.Message, "the test made it (New, called at p_test.go:6)") != byTest {
			t.Errorf("by test %v: test only %v, severity %s, message %q", byTest, f.TestOnly, f.Severity, f.Message)
		}
	}
}
