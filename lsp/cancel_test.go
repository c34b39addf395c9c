package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestCancelRequest: $/cancelRequest for a running replay stops the replay (the engine's
// context ends) and its progress says canceled; nothing logs "not implemented".
func TestCancelRequest(t *testing.T) {
	dir, testFile := buggyPackage(t)
	replaying := make(chan struct{})
	stopped := make(chan struct{})
	engine := &fakeEngine{
		fuzz: reportOf(sendOnClosed(testFile, analysis.Predicted)),
		replay: func(ctx context.Context, cfg fuzzer.Config, f fuzzer.Finding) (*ReplayResult, error) {
			close(replaying)
			<-ctx.Done()
			close(stopped)
			return nil, ctx.Err()
		},
	}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	id := sendOnClosed(testFile, analysis.Predicted).ID
	waitFor(t, "the finding", func() bool { _, ok := se.server.findings.get(id); return ok })

	ctx, cancel := context.WithCancel(context.Background())
	arg, _ := json.Marshal(ReplayArgs{ID: id})
	answered := make(chan error, 1)
	go func() {
		// protocol.Call sends $/cancelRequest for the call when ctx ends.
		_, err := se.remote.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "goweave.replay", Arguments: []protocol.LSPAny{arg}})
		answered <- err
	}()
	<-replaying
	cancel()
	<-stopped
	if err := <-answered; err == nil {
		t.Error("a cancelled replay answered without an error")
	}
	waitFor(t, "the replay's progress to end", func() bool {
		for _, e := range se.client.progressEvents() {
			if e.kind == "end" && strings.Contains(strings.ToLower(e.value["message"].(string)), "canceled") {
				return true
			}
		}
		return false
	})
	se.client.mu.Lock()
	for _, l := range se.client.logged {
		if strings.Contains(l.Message, "not implemented") {
			t.Errorf("logged %q", l.Message)
		}
	}
	se.client.mu.Unlock()
	se.shutdown()
}
