package lsp

import (
	"context"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestConfidenceNeverDrops: a confirmed finding stays confirmed (an error) when a later
// campaign of the same test only predicts it, and stays when a later campaign does not meet
// it at all; once the code changes, it goes with the next campaign, whose findings are what
// counts.
func TestConfidenceNeverDrops(t *testing.T) {
	dir, testFile := buggyPackage(t)
	var mu sync.Mutex
	var next []fuzzer.Finding // what the next campaign finds
	engine := &fakeEngine{
		fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
			mu.Lock()
			found := next
			mu.Unlock()
			return reportOf(found...)(ctx, cfg, progress)
		},
		replay: func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
			return &ReplayResult{Reproduced: true, Status: "panic", Panic: "send on closed channel"}, nil
		},
	}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	campaigns := 0
	campaign := func(found ...fuzzer.Finding) {
		t.Helper()
		mu.Lock()
		next = found
		mu.Unlock()
		if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
			t.Fatal(err)
		}
		campaigns++
		waitFor(t, "the campaign to complete", func() bool {
			n := 0
			for _, e := range se.client.progressEvents() {
				if e.kind == "end" && strings.HasPrefix(e.value["message"].(string), "completed") {
					n++
				}
			}
			return n == campaigns
		})
	}
	diagnostic := func() (protocol.Diagnostic, bool) {
		p, ok := se.client.diagsOf(testFile)
		if !ok || len(p.Diagnostics) != 1 {
			return protocol.Diagnostic{}, false
		}
		return p.Diagnostics[0], true
	}
	confidence := func() string {
		d, ok := diagnostic()
		if !ok {
			return "none"
		}
		msg := string(d.Message.(protocol.String))
		for _, c := range []string{"confirmed", "predicted", "actual"} {
			if strings.Contains(msg, "["+c+"]") {
				return c
			}
		}
		return msg
	}
	predicted := sendOnClosed(testFile, analysis.Predicted)

	campaign(predicted)
	if got := confidence(); got != "predicted" {
		t.Fatalf("after the first campaign: %s", got)
	}
	if _, err := se.execute("goweave.replay", ReplayArgs{ID: predicted.ID}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the confirmed diagnostic", func() bool { return confidence() == "confirmed" })

	campaign(predicted) // "fuzz this test" again: this campaign only predicts the bug
	if got := confidence(); got != "confirmed" {
		t.Errorf("a later campaign that only predicts the bug turned the confirmed finding %s", got)
	}
	if d, _ := diagnostic(); d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("severity %v, want error", d.Severity)
	}
	campaign() // a campaign that does not meet the bug at all
	if got := confidence(); got != "confirmed" {
		t.Errorf("a later campaign without the bug left %s, want the confirmed finding", got)
	}

	// The code changes: the evidence no longer stands.
	write(t, testFile, buggySource+"\nfunc TestAdded(t *testing.T) {}\n")
	campaign()
	if got := confidence(); got != "none" {
		t.Errorf("after the code changed, a campaign without the bug left %s", got)
	}
	campaign(predicted)
	if got := confidence(); got != "predicted" {
		t.Errorf("after the code changed: %s, want the new campaign's predicted finding", got)
	}
	se.shutdown()
}
