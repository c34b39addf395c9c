package lsp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestReplayNamesSteeredCase: the replay message says which case the replayed schedule
// steers a select to, as written (the schedule numbers the send, written second, 0).
func TestReplayNamesSteeredCase(t *testing.T) {
	dir, testFile := buggyPackage(t)
	src := filepath.Join(dir, "poll.go")
	write(t, src, "package buggy\n\nfunc poll(in, out chan int) {\n\tselect {\n\tcase <-in:\n\tcase out <- 1:\n\t}\n}\n")
	sched := filepath.Join(dir, "run.schedule")
	write(t, sched, "goweave-schedule 1\nfile 1 "+src+"\nselect 1:4 30 0 0\nend\n")
	f := sendOnClosed(testFile, analysis.Actual)
	f.Replay = sched
	engine := &fakeEngine{
		fuzz: reportOf(f),
		replay: func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
			return &ReplayResult{Reproduced: true, Status: "panic", Panic: "send on closed channel"}, nil
		},
	}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	if _, err := se.execute("goweave.replay", ReplayArgs{ID: f.ID}); err != nil {
		t.Fatal(err)
	}
	m := se.waitShown("confirmed: send-on-closed happened again")
	if want := "steered: select poll.go:4 prefers case 2 (`out <- 1`, line 6) in executions 1-2"; !strings.Contains(m.Message, want) {
		t.Errorf("replay message %q lacks %q", m.Message, want)
	}
}
