package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// firstSeen records the diagnostics the server had published for a file when the engine
// was first asked to fuzz: with the real engine, the build of the test binary starts
// there. (Server side: the client may not have handled the notification yet.)
type firstSeen struct {
	mu     sync.Mutex
	called bool
	diags  []protocol.Diagnostic
}

func (f *firstSeen) note(se *session, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.called {
		return
	}
	f.called = true
	fs := se.server.findings
	fs.mu.Lock()
	published := fs.published[path]
	fs.mu.Unlock()
	if published != "" {
		if err := protocol.Unmarshal([]byte(published), &f.diags); err != nil {
			se.t.Error(err)
		}
	}
}

func (f *firstSeen) get() (bool, []protocol.Diagnostic) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.called, f.diags
}

// TestLastCampaignAtOpen: after a campaign, a new session that opens the unchanged test
// file publishes the campaign's finding before the engine is asked to build anything,
// marked as from the last campaign; the campaign that follows confirms it and the mark
// goes. Once the file changed on disk, opening it publishes nothing before the campaign.
func TestLastCampaignAtOpen(t *testing.T) {
	dir, testFile := buggyPackage(t)
	saved := t.TempDir()
	opts := sessionOption{caps: fullCaps(), root: dir, serverOpts: []Option{withLastCampaignDir(saved)},
		initOptions: map[string]any{"backgroundFuzzing": false}}
	finding := sendOnClosed(testFile, analysis.Actual)

	// A campaign, then the editor is closed.
	first := newSession(t, &fakeEngine{fuzz: reportOf(finding)}, opts)
	first.open(testFile)
	if _, err := first.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the campaign's diagnostic", func() bool { p, ok := first.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	first.shutdown() // waits for the save
	if files, _ := filepath.Glob(filepath.Join(saved, "last-*.json")); len(files) != 1 {
		t.Fatalf("saved files = %q, want one", files)
	}

	// The editor again, on unchanged code, fuzzing in the background.
	opts.initOptions = map[string]any{"backgroundFuzzing": true}
	var seen firstSeen
	engine := &fakeEngine{}
	second := newSession(t, engine, opts)
	const building = "building the tests with the patched runtime of go1.26.8 with -race"
	engine.fuzz = func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		seen.note(second, testFile)
		progress(fuzzer.Progress{Stage: building})
		return reportOf(finding)(ctx, cfg, progress)
	}
	second.open(testFile)
	waitFor(t, "the campaign at open", func() bool { called, _ := seen.get(); return called })
	_, before := seen.get()
	if len(before) != 1 {
		t.Fatalf("diagnostics before the build = %+v, want the last campaign's finding", before)
	}
	d := before[0]
	var data DiagnosticData
	_ = json.Unmarshal(d.Data, &data)
	sendLine := lineOf(t, buggySource, "c <- 1")
	if msg := string(d.Message.(protocol.String)); !strings.HasSuffix(msg, "(from the last campaign, not yet rerun)") || !data.LastCampaign || data.ID != finding.ID ||
		int(d.Range.Start.Line) != sendLine-1 || len(d.RelatedInformation) != 1 {
		t.Errorf("restored diagnostic %q at %v, data %+v: want the send-on-closed on line %d marked as from the last campaign", msg, d.Range, data, sendLine)
	}
	published := func(c *testClient) []*protocol.PublishDiagnosticsParams {
		c.mu.Lock()
		defer c.mu.Unlock()
		return append([]*protocol.PublishDiagnosticsParams(nil), c.published...)
	}
	// The server sent it before the engine started; the client may still be reading it.
	waitFor(t, "the client's first diagnostics", func() bool { return len(published(second.client)) > 0 })
	firstPublished := published(second.client)[0]
	if len(firstPublished.Diagnostics) != 1 || !strings.Contains(string(firstPublished.Diagnostics[0].Data), `"lastCampaign":true`) {
		t.Errorf("the client's first diagnostics = %+v, want the restored finding", firstPublished)
	}
	waitFor(t, "the campaign's confirmation", func() bool {
		p, _ := second.client.diagsOf(testFile)
		return len(p.Diagnostics) == 1 && !strings.Contains(string(p.Diagnostics[0].Message.(protocol.String)), "last campaign") &&
			!strings.Contains(string(p.Diagnostics[0].Data), "lastCampaign")
	})
	// While the marked findings show, the client's progress says the build is under way.
	second.client.mu.Lock()
	order := strings.Join(second.client.order, "|")
	second.client.mu.Unlock() // not deferred: the client's handlers need it
	if !strings.HasPrefix(strings.TrimPrefix(order, "refresh|"), "report: "+building) {
		t.Errorf("progress reports = %s, want the build stage first", order)
	}
	second.shutdown()

	// The file changes on disk: nothing is restored.
	write(t, testFile, buggySource+"\n// edited\n")
	var seenEdited firstSeen
	edited := &fakeEngine{}
	third := newSession(t, edited, opts)
	edited.fuzz = func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		seenEdited.note(third, testFile)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	third.open(testFile)
	waitFor(t, "the campaign at open", func() bool { called, _ := seenEdited.get(); return called })
	if _, diags := seenEdited.get(); len(diags) != 0 {
		t.Errorf("diagnostics of an edited package before its campaign = %+v, want none", diags)
	}
	third.shutdown()
	for _, p := range published(third.client) {
		if len(p.Diagnostics) > 0 {
			t.Errorf("published for the edited package: %+v", p)
		}
	}
}

// TestLastCampaignMerge: a campaign's saved findings join those saved before for the
// same code (another test's, or one this campaign did not meet again), and replace them
// once the code changed.
func TestLastCampaignMerge(t *testing.T) {
	dir, testFile := buggyPackage(t)
	saved := t.TempDir()
	other := sendOnClosed(testFile, analysis.Predicted)
	other.ID, other.Test, other.Fingerprint = "f0", "TestOther", "fp0"
	again := sendOnClosed(testFile, analysis.Confirmed)
	again.ID = "f1b3" // the same bug (fingerprint), found again
	script := [][]fuzzer.Finding{{sendOnClosed(testFile, analysis.Actual), other}, {again}, nil}
	var mu sync.Mutex
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		mu.Lock()
		found := script[0]
		script = script[1:]
		mu.Unlock()
		return &fuzzer.Report{Findings: found}, nil
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, serverOpts: []Option{withLastCampaignDir(saved)},
		initOptions: map[string]any{"backgroundFuzzing": false}})
	read := func() string {
		files, _ := filepath.Glob(filepath.Join(saved, "last-*.json"))
		if len(files) != 1 {
			return ""
		}
		data, _ := os.ReadFile(files[0])
		var s savedFindings
		_ = json.Unmarshal(data, &s)
		var ids []string
		for _, f := range s.Findings {
			ids = append(ids, f.Test+":"+f.ID)
		}
		return strings.Join(ids, ",")
	}
	campaign := func(what, want string) {
		t.Helper()
		if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, what, func() bool { return read() == want })
	}
	campaign("the first campaign's findings", "TestSend:f1a2,TestOther:f0")
	campaign("the second campaign's merged in", "TestSend:f1b3,TestOther:f0")
	write(t, testFile, buggySource+"\n// edited\n")
	campaign("nothing, after an edit", "")
	if files, _ := filepath.Glob(filepath.Join(saved, "last-*.json")); len(files) != 1 {
		t.Errorf("saved files = %q, want the empty save", files)
	}
}

// TestSourceKey: the key changes with the package's files, with the files of a package of
// the module it imports, and with the race setting; not with an unrelated package.
func TestSourceKey(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/m // a comment\n\ngo 1.26\n")
	for _, d := range []string{"a", "b", "c"} {
		if err := mkdir(filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "a", "a_test.go"), "package a\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestA(t *testing.T) { b.B() }\n")
	write(t, filepath.Join(root, "b", "b.go"), "package b\n\nfunc B() {}\n")
	write(t, filepath.Join(root, "c", "c.go"), "package c\n")
	cfg := fuzzer.Config{Race: true, Strategy: "auto"}
	key := func(cfg fuzzer.Config) string {
		k, err := sourceKey(context.Background(), filepath.Join(root, "a"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key(cfg)
	write(t, filepath.Join(root, "c", "c.go"), "package c\n\nvar C int\n")
	if key(cfg) != k0 {
		t.Error("the key changed with a package the test does not import")
	}
	write(t, filepath.Join(root, "b", "b.go"), "package b\n\nfunc B() { println() }\n")
	k1 := key(cfg)
	if k1 == k0 {
		t.Error("the key did not change with an imported package of the module")
	}
	write(t, filepath.Join(root, "a", "a_test.go"), "package a\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/b\"\n)\n\nfunc TestA(t *testing.T) { b.B(); b.B() }\n")
	k2 := key(cfg)
	if k2 == k1 {
		t.Error("the key did not change with the package's test file")
	}
	cfg.Race = false
	if key(cfg) == k2 {
		t.Error("the key did not change with the race setting")
	}
}

// TestLastCampaignRealEngine: with the real engine, a session opened again on the unchanged
// testdata/buggy shows the last campaign's send-on-closed at once, marked, and the
// campaign that follows (which restores the engine's state of the same binary) reports it
// unmarked at the same place.
func TestLastCampaignRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs test binaries under the goweave runtime")
	}
	dir := copyTestdata(t, "buggy")
	testFile := filepath.Join(dir, "publish_test.go")
	opts := sessionOption{caps: fullCaps(), root: dir, serverOpts: []Option{withLastCampaignDir(t.TempDir())},
		initOptions: map[string]any{"backgroundFuzzing": true, "runsPerTest": 5, "parallel": 2}}
	diagOf := func(se *session) (protocol.Diagnostic, bool) {
		p, ok := se.client.diagsOf(testFile)
		if !ok || len(p.Diagnostics) != 1 {
			return protocol.Diagnostic{}, false
		}
		return p.Diagnostics[0], true
	}
	campaignOver := func(se *session) bool { _, running := se.server.campaigns.status(dir); return !running }

	first := newSession(t, FuzzerEngine{}, opts)
	first.requestTimeout = 10 * time.Minute
	first.open(testFile)
	waitUpTo(t, 10*time.Minute, "the first campaign's diagnostic", func() bool { _, ok := diagOf(first); return ok })
	waitUpTo(t, 10*time.Minute, "the first campaign's end", func() bool { return campaignOver(first) })
	found, _ := diagOf(first)
	first.shutdown()

	second := newSession(t, FuzzerEngine{}, opts)
	second.requestTimeout = 10 * time.Minute
	second.open(testFile)
	waitFor(t, "the restored diagnostic", func() bool { _, ok := diagOf(second); return ok })
	restored, _ := diagOf(second)
	if !strings.Contains(string(restored.Data), `"lastCampaign":true`) || restored.Range != found.Range {
		t.Errorf("first diagnostic of the second session: %s at %v, want the last campaign's at %v, marked", restored.Data, restored.Range, found.Range)
	}
	waitUpTo(t, 10*time.Minute, "the campaign's confirmation", func() bool {
		d, ok := diagOf(second)
		return ok && !strings.Contains(string(d.Data), "lastCampaign") && d.Range == found.Range
	})
	waitUpTo(t, 10*time.Minute, "the second campaign's end", func() bool { return campaignOver(second) })
	second.shutdown()
}
