package analysis

import (
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A worker's t.Logf that the test does not wait for: unordered with the test's end, a
// predicted t-used-after-test even though it ran first here.
func TestTestUsePredicted(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	w := m.Go("x_test.go:29")
	w.TestUse(test, tracetest.TErrorf, "x_test.go:31")
	w.End()
	m.TestEnd(test, "x_test.go:27")
	r := analyze(t, b)
	f := want(t, r, "t-used-after-test", Predicted, "x_test.go:31", "test=x_test.go:27")
	if want := `t.Errorf at x_test.go:31 by the goroutine started at x_test.go:29 is not ordered before the end of the test (at x_test.go:27): in another schedule it runs after the test completed and panics ("Fail in goroutine after ... has completed")`; f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	wantNo(t, r, "failnow-off-test")
}

// The use ran after the end: actual.
func TestTestUseAfterEnd(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	w := m.Go("x_test.go:29")
	m.TestEnd(test, "x_test.go:27")
	w.TestUse(test, tracetest.TLog, "x_test.go:31")
	want(t, analyze(t, b), "t-used-after-test", Actual, "x_test.go:31", "test=x_test.go:27")
}

// Workers joined before the end (a WaitGroup), and the test goroutine's own uses: nothing.
func TestTestUseJoined(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	wg := b.WaitGroup()
	m.TestUse(test, tracetest.TLog, "x_test.go:14")
	m.Add(wg, 2, "x_test.go:15")
	for i := 0; i < 2; i++ {
		w := m.Go("x_test.go:17")
		w.TestUse(test, tracetest.TLog, "x_test.go:19")
		w.Done(wg, "x_test.go:20")
		w.End()
	}
	m.Wait(wg, "x_test.go:22")
	m.TestUse(test, tracetest.TFatal, "x_test.go:23")
	m.TestEnd(test, "x_test.go:12")
	wantNo(t, analyze(t, b))
}

// A use of another test's T is not ordered against this test's end.
func TestTestUseOtherTest(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	t1, t2 := b.Test(), b.Test()
	w := m.Go("x_test.go:29")
	w.TestUse(t2, tracetest.TLog, "x_test.go:31")
	m.TestEnd(t1, "x_test.go:27")
	wantNo(t, analyze(t, b))
}

// t.Fatal and t.SkipNow from a goroutine the test waits for: failnow-off-test (and no
// t-used-after-test: the test waits). t.Log there is fine.
func TestFailNowOffTest(t *testing.T) {
	b := tracetest.New()
	m := b.Main()
	test := b.Test()
	done := m.MakeChan(0, "x_test.go:38")
	w := m.Go("x_test.go:39")
	w.TestUse(test, tracetest.TLog, "x_test.go:41")
	w.TestUse(test, tracetest.TFatal, "x_test.go:42")
	w.TestUse(test, tracetest.TSkipNow, "x_test.go:43")
	w.Close(done, "x_test.go:40")
	w.End()
	m.RecvBare(done, "x_test.go:45")
	m.TestEnd(test, "x_test.go:37")
	r := analyze(t, b)
	f := want(t, r, "failnow-off-test", Actual, "x_test.go:42", "test=x_test.go:37")
	if want := "t.Fatal at x_test.go:42 is called by the goroutine started at x_test.go:39, not by the test's goroutine: it ends only that goroutine, and the test (at x_test.go:37) goes on"; f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	want(t, r, "failnow-off-test", Actual, "x_test.go:43")
	wantNo(t, r, "t-used-after-test")
	if len(r.Findings) != 2 {
		t.Errorf("findings %v", summaries(r))
	}
}

// t.Fatal on a worker that Added to a WaitGroup the test waits on: the worker ends without
// its Done, the test's Wait never returns and the test never ends. The call is the finding
// (failnow-off-test, found without the test's end), naming the Wait it left; the Wait is not
// a leak-waitgroup of its own.
func TestFailNowOffTestTestNeverEnds(t *testing.T) {
	b := tracetest.New().Meta("exit", "signal").Meta("signal", "3").Meta("stuck", "global")
	m := b.Main()
	b.Meta("testgoid", "1")
	test := b.Test()
	wg := b.WaitGroup()
	w := m.Go("x_test.go:39")
	w.Add(wg, 1, "pool.go:20")
	w.TestUse(test, tracetest.TFatal, "x_test.go:42")
	w.End()
	m.Pending().Wait(wg, "pool.go:30")
	r := analyze(t, b)
	f := want(t, r, "failnow-off-test", Actual, "x_test.go:42")
	if want := "t.Fatal at x_test.go:42 is called by the goroutine started at x_test.go:39, not by the test's goroutine: it ends only that goroutine, and the test never finished; wg.Wait() at pool.go:30 waits forever for the Done this goroutine never ran"; f.Message != want {
		t.Errorf("message %q, want %q", f.Message, want)
	}
	wantNo(t, r, "leak-waitgroup")
	for _, f := range r.Findings {
		for _, p := range f.Positions {
			if strings.HasSuffix(p.File, "pool.go") {
				t.Errorf("%s: a position in pool.go, whose Wait only the test's t.Fatal left waiting", summary(f))
			}
		}
	}
}
