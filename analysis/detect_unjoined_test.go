package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/analysis/trace/tracetest"
)

const (
	goleakTest = "package p\n\nimport (\n\t\"testing\"\n\n\t\"go.uber.org/goleak\"\n)\n\nfunc TestX(t *testing.T) {\n\tdefer goleak.VerifyNone(t)\n\tp := New()\n\tp.Stop()\n}\n"
	plainTest  = "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tp := New()\n\tp.Stop()\n}\n"
	mainTest   = "package p\n\nimport (\n\t\"testing\"\n\n\tleak \"go.uber.org/goleak\"\n)\n\nfunc TestMain(m *testing.M) { leak.VerifyTestMain(m) }\n\nfunc TestX(t *testing.T) {\n\tp := New()\n\tp.Stop()\n}\n"
)

// stoppedPool records a pool whose worker (started at pool.go:10) is told to stop by a
// close at pool.go:30 in Stop; joined: the worker's deferred Done and Stop's Wait order its
// exit before the test's end. testGo: the test's own go statement started it.
func stoppedPool(t *testing.T, src string, joined, testGo, ended bool) *Result {
	return stoppedPoolBy(t, src, joined, testGo, ended, false)
}

// stoppedPoolBy is stoppedPool, where nilSend: Stop sends the worker a nil task on an
// unbuffered channel (pool.go:30) and waits for the sender's done channel; the worker's
// receive then happens before the send completes, so before the test's end, yet the worker
// still runs after it.
func stoppedPoolBy(t *testing.T, src string, joined, testGo, ended, nilSend bool) *Result {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(s string) string { return filepath.Join(dir, s) }
	b := tracetest.New().Meta("testgoid", "1")
	m := b.Main()
	test := b.Test()
	wg := b.WaitGroup()
	quit := m.MakeChan(0, at("pool.go:8"))
	m.Add(wg, 1, at("pool.go:9"))
	spawn := at("pool.go:10")
	if testGo {
		spawn = at("x_test.go:11")
	}
	w := m.Go(spawn)
	var send *tracetest.Op
	if nilSend {
		send = m.Pending().Send(quit, at("pool.go:30"))
	} else {
		m.Close(quit, at("pool.go:30"))
	}
	if ended {
		w.Recv(quit, at("pool.go:15"))
		if send != nil {
			send.Complete()
		}
		if joined {
			w.Done(wg, at("pool.go:16"))
		}
		w.End()
	}
	if joined {
		m.Wait(wg, at("pool.go:31"))
	}
	m.TestEnd(test, at("x_test.go:9"))
	tr, err := trace.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := AnalyzeWith(tr, Options{Test: "TestX", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Stop closes the quit channel and returns; the worker exits after the test went on: the
// goleak check passed only because it was quick.
func TestUnjoinedAfterStop(t *testing.T) {
	r := stoppedPool(t, goleakTest, false, false, true)
	f := want(t, r, "unjoined-goroutine", Predicted, "pool.go:30", "goroutine's last operation=pool.go:15", "go statement=pool.go:10", "check=x_test.go:10")
	if !strings.HasPrefix(f.Message, "goleak.VerifyNone at x_test.go:10 passed only by timing: the goroutine started at pool.go:10 was told to stop by the close at pool.go:30, received it at pool.go:15 and exited after it") {
		t.Errorf("message %q", f.Message)
	}
	// VerifyTestMain checks at the end of all tests: the same.
	want(t, stoppedPool(t, mainTest, false, false, true), "unjoined-goroutine", Predicted, "pool.go:30")
	// The stop signal is a send on an unbuffered channel: its receive is ordered before the
	// test's end, but the worker's exit is not.
	want(t, stoppedPoolBy(t, goleakTest, false, false, true, true), "unjoined-goroutine", Predicted, "pool.go:30", "goroutine's last operation=pool.go:15")
	wantNo(t, stoppedPoolBy(t, goleakTest, true, false, true, true), "unjoined-goroutine")
}

// No finding: the exit is ordered (a WaitGroup), the test checks nothing, the goroutine is
// the test's own, or it was still running at the end (left on purpose or ignored by the
// check; had the check seen it, the test failed).
func TestUnjoinedNot(t *testing.T) {
	wantNo(t, stoppedPool(t, goleakTest, true, false, true), "unjoined-goroutine")
	wantNo(t, stoppedPool(t, plainTest, false, false, true), "unjoined-goroutine")
	wantNo(t, stoppedPool(t, goleakTest, false, true, true), "unjoined-goroutine")
	wantNo(t, stoppedPool(t, goleakTest, false, false, false), "unjoined-goroutine")
}

// runtime.NumGoroutine is a check when the test compares a count; logged, it is not.
func TestUnjoinedNumGoroutine(t *testing.T) {
	compared := "package p\n\nimport (\n\t\"runtime\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) {\n\tbefore := runtime.NumGoroutine()\n\tp := New()\n\tp.Stop()\n\tif n := runtime.NumGoroutine(); n > before {\n\t\tt.Fatal(n)\n\t}\n}\n"
	f := want(t, stoppedPool(t, compared, false, false, true), "unjoined-goroutine", Predicted, "pool.go:30", "check=x_test.go:12")
	if !strings.HasPrefix(f.Message, "runtime.NumGoroutine at x_test.go:12 passed only by timing") {
		t.Errorf("message %q", f.Message)
	}
	logged := "package p\n\nimport (\n\t\"runtime\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) {\n\tp := New()\n\tp.Stop()\n\tt.Log(runtime.NumGoroutine())\n}\n"
	wantNo(t, stoppedPool(t, logged, false, false, true), "unjoined-goroutine")
}

// A worker a subtest joins: ordered before the subtest's end, which testing orders before
// its parent's through channels of its own that the trace does not show.
func TestUnjoinedJoinedInSubtest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(goleakTest), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(s string) string { return filepath.Join(dir, s) }
	b := tracetest.New().Meta("testgoid", "1")
	m := b.Main()
	test, subtest := b.Test(), b.Test()
	sub := m.Go("")
	wg := b.WaitGroup()
	sub.Add(wg, 1, at("pool.go:9"))
	w := sub.Go(at("pool.go:10"))
	w.Done(wg, at("pool.go:16"))
	w.End()
	sub.Wait(wg, at("pool.go:31"))
	sub.TestEnd(subtest, at("x_test.go:9"))
	sub.End()
	m.TestEnd(test, at("x_test.go:9"))
	tr, err := trace.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := AnalyzeWith(tr, Options{Test: "TestX", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	wantNo(t, r, "unjoined-goroutine")
}

// VerifyNone called first checks what earlier tests left; deferred, in a cleanup or last, it
// checks the test's own goroutines.
func TestUnjoinedVerifyWhere(t *testing.T) {
	first := strings.Replace(goleakTest, "defer goleak.VerifyNone(t)", "goleak.VerifyNone(t)", 1)
	wantNo(t, stoppedPool(t, first, false, false, true), "unjoined-goroutine")
	last := "package p\n\nimport (\n\t\"testing\"\n\n\t\"go.uber.org/goleak\"\n)\n\nfunc TestX(t *testing.T) {\n\tp := New()\n\tp.Stop()\n\tgoleak.VerifyNone(t)\n}\n"
	want(t, stoppedPool(t, last, false, false, true), "unjoined-goroutine", Predicted, "pool.go:30", "check=x_test.go:12")
	cleanup := "package p\n\nimport (\n\t\"testing\"\n\n\t\"go.uber.org/goleak\"\n)\n\nfunc TestX(t *testing.T) {\n\tt.Cleanup(func() { goleak.VerifyNone(t) })\n\tp := New()\n\tp.Stop()\n}\n"
	want(t, stoppedPool(t, cleanup, false, false, true), "unjoined-goroutine", Predicted, "pool.go:30", "check=x_test.go:10")
}
