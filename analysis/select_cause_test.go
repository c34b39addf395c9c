package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// poolRun is one run of a test whose select at pool.go:17 chose case took (0 `<-p.ch`, 1
// `<-ctx.Done()`) with the given cases ready, then failed (t.Fatalf) or not; a select at
// loop.go:9 after the failure took case 0 with both ready.
func poolRun(took int, ready []bool, failed bool) SelectChoices {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	slot := m.MakeChan(1, "pool.go:9")
	m.Send(slot, "pool.go:11")
	done := m.MakeChan(0, "ctx.go:1")
	m.Close(done, "pool_test.go:11")
	sel := m.Select("pool.go:17", took, tracetest.RecvCase(slot), tracetest.RecvCase(done))
	for k, r := range ready {
		sel.Event().Cases[k].Ready = r
	}
	if failed {
		m.TestUse(test, tracetest.TFatal, "pool_test.go:13")
	}
	m.Send(slot, "loop.go:8")
	after := m.Select("loop.go:9", 0, tracetest.RecvCase(slot), tracetest.RecvCase(done))
	after.Event().Cases[0].Ready, after.Event().Cases[1].Ready = true, true
	m.TestEnd(test, "pool_test.go:8")
	return SelectChoicesOf(b.Trace())
}

func TestSelectChoicesOf(t *testing.T) {
	pool := SelectSite{tracetest.Dir + "pool.go", 17}
	loop := SelectSite{tracetest.Dir + "loop.go", 9}
	got := poolRun(0, []bool{true, true}, true)
	if cs := got[pool]; cs.Took != 1 || cs.Ready != 3 || cs.Cases != 2 || cs.Sends != 0 {
		t.Errorf("failing run, pool.go:17: %+v, want case 0 taken among cases 0 and 1 ready", cs)
	}
	if _, ok := got[loop]; ok {
		t.Errorf("failing run: the select after t.Fatalf is kept: %+v", got)
	}
	got = poolRun(1, []bool{true, true}, false)
	if cs := got[pool]; cs.Took != 2 || cs.Ready != 3 {
		t.Errorf("passing run, pool.go:17: %+v, want case 1 taken among ready 0 and 1", cs)
	}
	if cs := got[loop]; cs.Took != 1 {
		t.Errorf("passing run, loop.go:9: %+v, want kept (no failure cuts it)", cs)
	}
	// Woken by its only ready case, or blocked until one came: no choice.
	for _, ready := range [][]bool{{true, false}, {false, false}, {false, true}} {
		if cs, ok := poolRun(0, ready, true)[pool]; ok {
			t.Errorf("ready %v: %+v, want no choice", ready, cs)
		}
	}
}

// repeat returns n copies of c.
func repeat(c SelectChoices, n int) []SelectChoices {
	out := make([]SelectChoices, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func TestSelectCauses(t *testing.T) {
	both := []bool{true, true}
	tookSlot := poolRun(0, both, true)
	tookDone := poolRun(1, both, false)
	passFree := poolRun(0, []bool{true, false}, false) // passed with no choice made
	pool := SelectSite{tracetest.Dir + "pool.go", 17}
	t.Run("clean split", func(t *testing.T) {
		causes := SelectCauses(repeat(tookSlot, 12), repeat(tookDone, 15))
		if len(causes) != 1 {
			t.Fatalf("causes %+v, want the select at pool.go:17", causes)
		}
		c := causes[0]
		if c.Site != pool || c.Case != 0 || c.Other != 1 || c.Passed != 1 || c.FailingTook != 12 || c.Failing != 12 || c.PassingOther != 15 || c.Passing != 15 || c.PassingTook != 0 {
			t.Errorf("cause %+v", c)
		}
	})
	t.Run("strong majority", func(t *testing.T) {
		failing := append(repeat(tookSlot, 19), tookDone)
		passing := append(repeat(tookDone, 19), tookSlot)
		if causes := SelectCauses(failing, passing); len(causes) != 1 || causes[0].FailingTook != 19 || causes[0].PassingTook != 1 {
			t.Errorf("causes %+v, want pool.go:17 in 19 of 20 runs each way", causes)
		}
	})
	t.Run("by chance", func(t *testing.T) {
		// Unrelated to the failure: each way in about half the runs.
		failing := append(repeat(tookSlot, 6), repeat(tookDone, 5)...)
		passing := append(repeat(tookSlot, 7), repeat(tookDone, 6)...)
		if causes := SelectCauses(failing, passing); len(causes) != 0 {
			t.Errorf("causes %+v, want none", causes)
		}
	})
	t.Run("few runs", func(t *testing.T) {
		if causes := SelectCauses(repeat(tookSlot, 3), repeat(tookDone, 30)); len(causes) != 0 {
			t.Errorf("3 failing runs: causes %+v, want none", causes)
		}
		if causes := SelectCauses(repeat(tookSlot, 6), append(repeat(tookDone, 3), repeat(passFree, 30)...)); len(causes) != 0 {
			t.Errorf("6 failing runs, 3 passing runs the other way: causes %+v, want none", causes)
		}
	})
	t.Run("no choice when passing", func(t *testing.T) {
		// Passing runs had one case ready: the failing runs' choices are the evidence.
		causes := SelectCauses(repeat(tookSlot, 10), repeat(passFree, 40))
		if len(causes) != 1 || causes[0].Passed != -1 || causes[0].Other != 1 || causes[0].PassingOther != 0 {
			t.Errorf("causes %+v, want pool.go:17 with no passing choice", causes)
		}
	})
	t.Run("both in every run", func(t *testing.T) {
		loop := SelectChoices{pool: ChoiceSet{Took: 3, Ready: 3, Cases: 2}}
		if causes := SelectCauses(repeat(loop, 10), repeat(loop, 10)); len(causes) != 0 {
			t.Errorf("causes %+v, want none", causes)
		}
	})
}

func TestSelectCauseDescribe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pool.go")
	src := "package p\n\nfunc get(ch, done chan struct{}) bool {\n\tselect {\n\tcase <-ch:\n\t\treturn true\n\tcase <-done:\n\t\treturn false\n\t}\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := SelectCause{Site: SelectSite{file, 4}, Case: 0, Other: 1, Passed: 1, Sends: []bool{false, false}, Failing: 12, FailingTook: 12, Passing: 15, PassingOther: 14, PassingTook: 1}
	msg, pos := c.Describe()
	want := "the select at pool.go:4 took case 1 (`<-ch`, line 5) while case 2 (`<-done`, line 7) was ready too in all 12 failing runs and in only 1 of the 15 passing runs, 14 of 15 took case 2 while case 1 was ready: Go chooses among ready cases at random"
	if msg != want {
		t.Errorf("message\n%s\nwant\n%s", msg, want)
	}
	c.Passed, c.PassingOther, c.PassingTook = -1, 0, 0
	if msg, _ := c.Describe(); msg != "the select at pool.go:4 took case 1 (`<-ch`, line 5) while case 2 (`<-done`, line 7) was ready too in all 12 failing runs and in none of the 15 passing runs: Go chooses among ready cases at random" {
		t.Errorf("no passing choice: message %s", msg)
	}
	if len(pos) != 3 || pos[0].Line != 4 || pos[1].Line != 5 || pos[2].Line != 7 || !strings.HasPrefix(pos[0].Role, "cause: ") {
		t.Errorf("positions %+v, want the select (4) and its cases (5, 7)", pos)
	}
}

// The trace keeps which cases were ready.
func TestCaseReadyRoundTrip(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	c := m.MakeChan(1, "a.go:1")
	d := m.MakeChan(1, "a.go:2")
	m.Send(c, "a.go:3")
	sel := m.Select("a.go:4", 0, tracetest.RecvCase(c), tracetest.RecvCase(d))
	sel.Event().Cases[0].Ready = true
	tr, err := trace.Read(strings.NewReader(string(b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range tr.Events {
		if ev.Kind == trace.KindSelect && (!ev.Cases[0].Ready || ev.Cases[1].Ready) {
			t.Errorf("cases %+v, want the first ready", ev.Cases)
		}
	}
}
