package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

func (se *session) waitShown(substr string) protocol.ShowMessageParams {
	se.t.Helper()
	var found protocol.ShowMessageParams
	waitFor(se.t, fmt.Sprintf("a message containing %q", substr), func() bool {
		for _, m := range se.client.shownMessages() {
			if strings.Contains(m.Message, substr) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

func (se *session) edit(path string, version int32) {
	se.t.Helper()
	err := se.remote.DidChange(se.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 0}}, Text: "// edit\n"}},
	})
	if err != nil {
		se.t.Fatal(err)
	}
}

// TestBackgroundCampaignLifecycle: opening a test file starts a campaign with the
// settings' budget; an edit cancels it (its processes with it) and its findings are
// dropped; saving starts a new one.
func TestBackgroundCampaignLifecycle(t *testing.T) {
	dir, testFile := buggyPackage(t)
	started := make(chan fuzzer.Config, 4)
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		started <- cfg
		<-ctx.Done()
		// A campaign cancelled by an edit returns what it found so far.
		return &fuzzer.Report{Findings: []fuzzer.Finding{sendOnClosed(testFile, analysis.Actual)}}, ctx.Err()
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir,
		initOptions: map[string]any{"budgetPerTest": "3s", "runsPerTest": 7, "race": true, "strategy": "gfuzz", "parallel": 3}})
	se.open(testFile)
	cfg := <-started
	cfg.Enough = nil // tested by TestDiagnosticsAsFound
	want := fuzzer.Config{Dir: dir, Packages: []string{"."}, TimePerTest: 3 * time.Second, RunsPerTest: 7, Strategy: "gfuzz", Parallel: 3, Race: true}
	if fmt.Sprint(cfg) != fmt.Sprint(want) {
		t.Errorf("background campaign config = %+v, want %+v", cfg, want)
	}
	se.edit(testFile, 2)
	waitFor(t, "cancelled campaign", func() bool { _, running, returned := engine.stats(); return running == 0 && returned == 1 })
	waitFor(t, "progress end", func() bool {
		ev := se.client.progressEvents()
		return len(ev) > 0 && ev[len(ev)-1].kind == "end"
	})
	ev := se.client.progressEvents()
	if msg := ev[len(ev)-1].value["message"].(string); !strings.Contains(msg, "edited") {
		t.Errorf("end message = %q, want it to say the package was edited", msg)
	}
	if p, ok := se.client.diagsOf(testFile); ok && len(p.Diagnostics) > 0 {
		t.Errorf("findings of a campaign cancelled by an edit were published: %v", p.Diagnostics)
	}
	if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}}); err != nil {
		t.Fatal(err)
	}
	<-started
	if calls, _, _ := engine.stats(); calls != 2 {
		t.Errorf("engine called %d times, want 2", calls)
	}
	se.shutdown()
	if _, running, _ := engine.stats(); running != 0 {
		t.Errorf("%d campaigns still running after shutdown", running)
	}
}

// TestMaxCampaignsQueues: with maxCampaigns 1 a second package waits for the first.
func TestMaxCampaignsQueues(t *testing.T) {
	root := t.TempDir()
	var files []string
	for _, name := range []string{"a", "b"} {
		dir := filepath.Join(root, name)
		write(t, filepath.Join(root, "go.mod"), "module example.com/m\n")
		if err := mkdir(dir); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, name+"_test.go")
		write(t, f, "package "+name+"\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n")
		files = append(files, f)
	}
	started := make(chan fuzzer.Config, 4)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: root})
	se.open(files[0])
	se.open(files[1])
	first := <-started
	select {
	case cfg := <-started:
		t.Fatalf("second campaign (%s) started while the first runs", cfg.Dir)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := se.execute("goweave.stop", StopArgs{URI: uri.File(files[0])}); err != nil {
		t.Fatal(err)
	}
	second := <-started
	if first.Dir != filepath.Dir(files[0]) || second.Dir != filepath.Dir(files[1]) {
		t.Errorf("campaigns ran over %s then %s", first.Dir, second.Dir)
	}
	se.shutdown()
}

// TestPackagesSettingSelects: background fuzzing only covers the configured packages.
func TestPackagesSettingSelects(t *testing.T) {
	for _, tc := range []struct {
		rel      string
		patterns []string
		want     bool
	}{
		{"a", []string{"./..."}, true},
		{".", []string{"./..."}, true},
		{"a/b", []string{"./a/..."}, true},
		{"a", []string{"./a/..."}, true},
		{"ab", []string{"./a/..."}, false},
		{"a/b", []string{"./a"}, false},
		{"a", []string{"./a"}, true},
		{".", []string{"."}, true},
		{"../x", []string{"./..."}, false},
	} {
		got := packageSelected("/w", filepath.Join("/w", tc.rel), tc.patterns)
		if got != tc.want {
			t.Errorf("packageSelected(%s, %v) = %v, want %v", tc.rel, tc.patterns, got, tc.want)
		}
	}
}

// TestProgressCancel: window/workDoneProgress/cancel stops the campaign.
func TestProgressCancel(t *testing.T) {
	dir, testFile := buggyPackage(t)
	started := make(chan fuzzer.Config, 1)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	<-started
	se.client.mu.Lock()
	token := se.client.created[0]
	se.client.mu.Unlock()
	if err := se.remote.WorkDoneProgressCancel(se.ctx(), &protocol.WorkDoneProgressCancelParams{Token: protocol.String(token)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "cancelled campaign", func() bool { _, running, returned := engine.stats(); return running == 0 && returned == 1 })
	waitFor(t, "end", func() bool {
		ev := se.client.progressEvents()
		return len(ev) > 0 && ev[len(ev)-1].kind == "end" && ev[len(ev)-1].value["message"] == "canceled" && ev[len(ev)-1].token == token
	})
	se.shutdown()
}

// TestCampaignErrorsAreShown: a package that does not compile, a package without
// tests, a failing and a crashing engine become messages, and the server keeps serving.
func TestCampaignErrorsAreShown(t *testing.T) {
	dir, testFile := buggyPackage(t)
	var script []func() (*fuzzer.Report, error)
	script = append(script,
		func() (*fuzzer.Report, error) {
			return &fuzzer.Report{}, fmt.Errorf("building: %w", &fuzzer.BuildError{Package: "example.com/buggy", Output: "./buggy_test.go:3:1: syntax error: unexpected }", ExitCode: 1})
		},
		func() (*fuzzer.Report, error) { return &fuzzer.Report{}, nil },
		func() (*fuzzer.Report, error) {
			return nil, errors.New("goweave needs go1.26.8, found go1.25.0: install Go 1.26.8")
		},
		func() (*fuzzer.Report, error) { panic("engine bug") },
		func() (*fuzzer.Report, error) {
			return &fuzzer.Report{Tests: []fuzzer.TestResult{{Test: "TestSend", Runs: 3, Status: "crash"}}}, nil
		},
	)
	call := 0
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		f := script[call]
		call++
		return f()
	}}
	se := newSession(t, engine, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	wants := []struct {
		substr string
		typ    protocol.MessageType
	}{
		{"do not compile; fix them and save:\n./buggy_test.go:3:1: syntax error", protocol.MessageTypeError},
		{"no tests to fuzz in ./.", protocol.MessageTypeWarning},
		{"failed: goweave needs go1.26.8", protocol.MessageTypeError},
		{"crashed: engine bug", protocol.MessageTypeError},
		{"test TestSend of ./. crashed", protocol.MessageTypeWarning},
	}
	for _, w := range wants {
		if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)}); err != nil {
			t.Fatal(err)
		}
		m := se.waitShown(w.substr)
		if m.Type != w.typ {
			t.Errorf("message %q has type %v, want %v", m.Message, m.Type, w.typ)
		}
		waitFor(t, "campaign end", func() bool { _, running, _ := engine.stats(); return running == 0 })
	}
	se.shutdown()
}

// TestBackgroundNeedsTests: saving a file of a package without tests, or of a package
// outside the packages setting, schedules nothing.
func TestBackgroundNeedsTests(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n")
	write(t, filepath.Join(root, "plain.go"), "package m\n")
	if err := mkdir(filepath.Join(root, "skipped")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "skipped", "x_test.go"), "package skipped\n")
	engine := &fakeEngine{fuzz: blockingFuzz(nil)}
	se := newSession(t, engine, sessionOption{root: root, initOptions: map[string]any{"packages": []string{"./other/..."}}})
	scheduled := func() int {
		// A request is handled after the notifications before it, so the campaigns
		// they scheduled are visible once it returns.
		if _, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(root, "plain.go"))}}); err != nil {
			t.Fatal(err)
		}
		c := se.server.campaigns
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.running) + len(c.queue)
	}
	for _, f := range []string{"plain.go", "skipped/x_test.go"} {
		if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(root, f))}}); err != nil {
			t.Fatal(err)
		}
		if n := scheduled(); n != 0 {
			t.Errorf("saving %s scheduled %d campaigns", f, n)
		}
	}
	// The same save with the package selected does schedule.
	if err := se.remote.DidChangeConfiguration(se.ctx(), &protocol.DidChangeConfigurationParams{Settings: []byte(`{"goweave": {"packages": ["./..."]}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(root, "skipped", "x_test.go"))}}); err != nil {
		t.Fatal(err)
	}
	if n := scheduled(); n != 1 {
		t.Errorf("saving a selected test package scheduled %d campaigns, want 1", n)
	}
	se.shutdown()
}

// TestBackgroundOnNonTestFile: opening a non-test Go file of a package with tests starts
// the package's background campaign; a package without tests starts nothing.
func TestBackgroundOnNonTestFile(t *testing.T) {
	dir, _ := buggyPackage(t)
	code := filepath.Join(dir, "buggy.go")
	write(t, code, "package buggy\n\nfunc Helper() {}\n")
	plain := filepath.Join(dir, "plain")
	if err := mkdir(plain); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(plain, "plain.go"), "package plain\n")
	started := make(chan fuzzer.Config, 4)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir})
	se.open(filepath.Join(plain, "plain.go"))
	se.open(code)
	if cfg := <-started; cfg.Dir != dir {
		t.Errorf("background campaign over %s, want %s", cfg.Dir, dir)
	}
	// plain was opened first: had it been scheduled it would have started first.
	if calls, _, _ := engine.stats(); calls != 1 {
		t.Errorf("%d campaigns, want 1", calls)
	}
	se.shutdown()
}
