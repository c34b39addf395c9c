package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestFuzzTestPublishesDiagnostics drives a whole campaign requested by the user:
// progress begin/report/end, then a diagnostic on the exact send operation with the
// close as related information.
func TestFuzzTestPublishesDiagnostics(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Predicted))}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)

	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	var pub *protocol.PublishDiagnosticsParams
	waitFor(t, "diagnostics", func() bool {
		p, ok := se.client.diagsOf(testFile)
		pub = p
		return ok && len(p.Diagnostics) > 0
	})
	_, cfgs, _ := engine.stats()
	_ = cfgs
	engine.mu.Lock()
	cfg := engine.configs[0]
	engine.mu.Unlock()
	if cfg.Dir != dir || cfg.Run != "^TestSend$" || len(cfg.Packages) != 1 || cfg.Packages[0] != "." {
		t.Errorf("campaign config = %+v, want Dir %s, Run ^TestSend$, Packages [.]", cfg, dir)
	}
	if v, ok := pub.Version.Get(); !ok || v != 1 {
		t.Errorf("published version = %v, %v; want the open document's version 1", v, ok)
	}
	if len(pub.Diagnostics) != 1 {
		t.Fatalf("got %d diagnostics, want 1", len(pub.Diagnostics))
	}
	d := pub.Diagnostics[0]
	if got := rangeText(t, buggySource, d.Range); got != "<-" || d.Range.Start.Line != 13 {
		t.Errorf("diagnostic covers %q on line %d, want the send operator \"<-\" on line 14", got, d.Range.Start.Line+1)
	}
	if d.Severity != protocol.DiagnosticSeverityWarning {
		t.Errorf("severity of a predicted finding = %v, want warning", d.Severity)
	}
	if code, _ := d.Code.(protocol.String); code != "send-on-closed" {
		t.Errorf("code = %v, want send-on-closed", d.Code)
	}
	if d.CodeDescription.Href != uri.URI(KindDocURL+"#send-on-closed") {
		t.Errorf("href = %s", d.CodeDescription.Href)
	}
	if src, _ := d.Source.Get(); src != "goweave" {
		t.Errorf("source = %q", src)
	}
	if id, ok := findingID(d); !ok || id != "f1a2" {
		t.Errorf("data = %s, want the finding id f1a2", d.Data)
	}
	if len(d.RelatedInformation) != 1 {
		t.Fatalf("related information = %+v, want the close", d.RelatedInformation)
	}
	rel := d.RelatedInformation[0]
	if rel.Message != "close" || rel.Location.URI != uri.File(testFile) || rangeText(t, buggySource, rel.Location.Range) != "close(" || rel.Location.Range.Start.Line != 15 {
		t.Errorf("related = %+v, want role close at \"close(\" on line 16", rel)
	}

	// Diagnostics are published as the campaign finds them, before its progress ends.
	waitFor(t, "progress end", func() bool {
		ev := se.client.progressEvents()
		return len(ev) > 0 && ev[len(ev)-1].kind == "end"
	})
	events := se.client.progressEvents()
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.kind)
	}
	if len(kinds) < 2 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" || events[0].value["cancellable"] != true {
		t.Fatalf("progress kinds = %v (begin %v), want begin (cancellable) ... end", kinds, events[0].value)
	}
	if msg := events[len(events)-1].value["message"]; msg != "completed: 120 runs, 1 finding" {
		t.Errorf("end message = %q", msg)
	}
	if !strings.Contains(events[0].value["title"].(string), "TestSend") {
		t.Errorf("progress title %q does not name the test", events[0].value["title"])
	}
	se.shutdown()
}

// TestRelatedInformationInMessage: a client without relatedInformation support gets the
// other positions in the message.
func TestRelatedInformationInMessage(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Actual))}
	se := newSession(t, engine, sessionOption{root: dir, initOptions: map[string]any{"goweave": map[string]any{"backgroundFuzzing": false}}})
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(dir)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	p, _ := se.client.diagsOf(testFile)
	d := p.Diagnostics[0]
	msg := string(d.Message.(protocol.String))
	if want := "send on closed channel [actual]\nclose: buggy_test.go:16:2"; msg != want {
		t.Errorf("message = %q, want %q", msg, want)
	}
	if len(d.RelatedInformation) != 0 {
		t.Errorf("related information sent to a client without support: %v", d.RelatedInformation)
	}
	if d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("severity of an actual finding = %v, want error", d.Severity)
	}
	if _, ok := p.Version.Get(); ok {
		t.Errorf("version sent for a file that is not open")
	}
	// Without workDoneProgress, the start and the end of the campaign are messages.
	waitFor(t, "end message", func() bool {
		for _, m := range se.client.shownMessages() {
			if strings.Contains(m.Message, "completed: 120 runs, 1 finding") {
				return true
			}
		}
		return false
	})
	if len(se.client.progressEvents()) != 0 {
		t.Errorf("$/progress sent to a client without workDoneProgress")
	}
	se.shutdown()
}

// TestEditMovesOrDropsDiagnostics: edits above a diagnostic move it, edits on its line
// drop it, and the publication carries the new version.
func TestEditMovesOrDropsDiagnostics(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Actual))}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })

	change := func(version int32, line uint32, text string, endLine uint32) {
		t.Helper()
		err := se.remote.DidChange(se.ctx(), &protocol.DidChangeTextDocumentParams{
			TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}, Version: version},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
				Range: protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: endLine}}, Text: text}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Two lines inserted above the function: the send moves from line 14 to 16, the
	// close from 16 to 18.
	change(2, 7, "// one\n// two\n", 7)
	waitFor(t, "moved diagnostic", func() bool {
		p, _ := se.client.diagsOf(testFile)
		v, _ := p.Version.Get()
		return v == 2
	})
	p, _ := se.client.diagsOf(testFile)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Range.Start.Line != 15 || p.Diagnostics[0].RelatedInformation[0].Location.Range.Start.Line != 17 {
		t.Fatalf("after inserting 2 lines above: %+v, want the send on line 16 and the close on 18", p.Diagnostics)
	}
	text, _, _, _ := se.server.openText(testFile)
	if got := rangeText(t, text, p.Diagnostics[0].Range); got != "<-" {
		t.Errorf("moved diagnostic covers %q, want <-", got)
	}
	// An edit after both positions changes nothing.
	change(3, 20, "\n", 20)
	// An edit on the close's line drops the related position but keeps the diagnostic.
	change(4, 17, "\tclose(c) // edited\n", 18)
	waitFor(t, "related dropped", func() bool {
		p, _ := se.client.diagsOf(testFile)
		return len(p.Diagnostics) == 1 && len(p.Diagnostics[0].RelatedInformation) == 0
	})
	// An edit on the send's line drops the diagnostic: an empty array, not null.
	change(5, 15, "\t\tc <- 2\n", 16)
	waitFor(t, "diagnostic dropped", func() bool {
		p, _ := se.client.diagsOf(testFile)
		return len(p.Diagnostics) == 0
	})
	p, _ = se.client.diagsOf(testFile)
	if p.Diagnostics == nil {
		t.Errorf("cleared diagnostics decoded as null, want []")
	}
	if v, _ := p.Version.Get(); v != 5 {
		t.Errorf("version = %d, want 5", v)
	}
	se.shutdown()
}

// TestClearCommand removes a package's diagnostics.
func TestClearCommand(t *testing.T) {
	dir, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf(sendOnClosed(testFile, analysis.Actual))}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	if _, err := se.execute("goweave.clear", ClearArgs{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "cleared", func() bool { p, _ := se.client.diagsOf(testFile); return len(p.Diagnostics) == 0 })
	if _, err := se.execute("goweave.replay", ReplayArgs{ID: "f1a2"}); err == nil || !strings.Contains(err.Error(), "no finding") {
		t.Errorf("replay of a cleared finding: %v, want a no-finding error", err)
	}
	se.shutdown()
}

// TestDiagnosticsAsFound: findings are published while the campaign still runs.
func TestDiagnosticsAsFound(t *testing.T) {
	dir, testFile := buggyPackage(t)
	found := sendOnClosed(testFile, analysis.Predicted)
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		if cfg.Enough == nil {
			t.Error("campaign config has no Enough hook")
			return nil, nil
		}
		id := fuzzer.TestID{Package: "example.com/buggy", Dir: dir, Test: "TestSend"}
		if cfg.Enough(id, nil) || cfg.Enough(id, []fuzzer.Finding{found}) {
			t.Error("the hook ended a test early")
		}
		<-ctx.Done()
		return &fuzzer.Report{Findings: []fuzzer.Finding{found}}, ctx.Err()
	}}
	se := newSession(t, engine, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "diagnostics during the campaign", func() bool { p, ok := se.client.diagsOf(testFile); return ok && len(p.Diagnostics) == 1 })
	if _, running, _ := engine.stats(); running != 1 {
		t.Errorf("campaign no longer running when its first finding was published")
	}
	se.shutdown()
}

// A leak of the test's own goroutine is a warning in the editor as in JSON and SARIF; the
// same leak in the package's code stays an error.
func TestDiagnosticSeverityTestOnly(t *testing.T) {
	sf := &storedFinding{places: []placement{{path: "/m/x_test.go", valid: true}}}
	sf.Kind, sf.Confidence = "leak-chan", analysis.Actual
	sf.Positions = []analysis.Position{{Role: "blocked", File: "/m/x_test.go", Line: 3, Column: 2}}
	if got := sf.diagnostic(false).Severity; got != protocol.DiagnosticSeverityError {
		t.Errorf("leak in the package's code: severity %v, want error", got)
	}
	sf.TestOnly = true
	if got := sf.diagnostic(false).Severity; got != protocol.DiagnosticSeverityWarning {
		t.Errorf("test-only leak: severity %v, want warning", got)
	}
}

// A prediction its confirmation refuted is a hint in the editor, as in JSON (severity
// "hint") and SARIF (note); unrefuted it stays a warning.
func TestDiagnosticSeverityRefuted(t *testing.T) {
	sf := &storedFinding{places: []placement{{path: "/m/x.go", valid: true}}}
	sf.Kind, sf.Confidence = "mixed-deadlock", analysis.Predicted
	sf.Positions = []analysis.Position{{Role: "lock", File: "/m/x.go", Line: 3, Column: 2}}
	if got := sf.diagnostic(false).Severity; got != protocol.DiagnosticSeverityWarning {
		t.Errorf("predicted finding: severity %v, want warning", got)
	}
	sf.Refuted = "ran to completion: the test passed without the bug"
	if got := sf.diagnostic(false).Severity; got != protocol.DiagnosticSeverityHint {
		t.Errorf("refuted prediction: severity %v, want hint", got)
	}
}
