package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// copyTestdata copies lsp/testdata/<name> to a temporary directory, so that campaigns
// and edits never touch the repository.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dst, e.Name()), string(b))
	}
	return dst
}

// childProcesses lists the processes whose parent is this test process.
func childProcesses(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc: cannot check for leftover processes")
	}
	me := strconv.Itoa(os.Getpid())
	var kids []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces, so split after ')'.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			kids = append(kids, e.Name()+" "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return kids
}

// TestEndToEndRealEngine drives the server with the real fuzzing engine on
// testdata/buggy: a campaign requested from a lens finds the predicted send-on-closed,
// published on the exact send with the close as related information; the code actions
// replay it and show its timeline; an edit moves the diagnostic; a long campaign is
// stopped; shutdown leaves no process behind.
func TestEndToEndRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs test binaries under the goweave runtime")
	}
	dir := copyTestdata(t, "buggy")
	testFile := filepath.Join(dir, "publish_test.go")
	source, _ := os.ReadFile(testFile)
	se := newSession(t, FuzzerEngine{}, sessionOption{caps: fullCaps(), root: dir,
		initOptions: map[string]any{"backgroundFuzzing": false, "runsPerTest": 5, "budgetPerTest": "30s", "parallel": 2}})
	se.requestTimeout = 10 * time.Minute
	se.open(testFile)

	lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lensTitles(lenses); strings.Join(got, "|") != "fuzz package tests|fuzz this test TestPublish|fuzz this test TestQuiet" {
		t.Fatalf("lenses = %q", got)
	}
	lens := lenses[1].Command
	if _, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: lens.Command, Arguments: lens.Arguments}); err != nil {
		t.Fatal(err)
	}
	waitUpTo(t, 10*time.Minute, "a diagnostic from the real engine", func() bool {
		p, ok := se.client.diagsOf(testFile)
		return ok && len(p.Diagnostics) > 0
	})
	waitFor(t, "campaign end", func() bool {
		ev := se.client.progressEvents()
		return len(ev) > 0 && ev[len(ev)-1].kind == "end"
	})
	if ev := se.client.progressEvents(); ev[0].kind != "begin" || !strings.HasPrefix(ev[len(ev)-1].value["message"].(string), "completed: 5 runs") {
		t.Errorf("progress: first %v, last %v", ev[0].value, ev[len(ev)-1].value)
	}
	p, _ := se.client.diagsOf(testFile)
	if len(p.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %+v, want the send-on-closed only", p.Diagnostics)
	}
	d := p.Diagnostics[0]
	sendLine := lineOf(t, string(source), "results <- 42")
	closeLine := lineOf(t, string(source), "close(results)")
	if code, _ := d.Code.(protocol.String); code != "send-on-closed" || int(d.Range.Start.Line) != sendLine-1 || rangeText(t, string(source), d.Range) != "<-" {
		t.Errorf("diagnostic %s at %v (%q), want send-on-closed on the <- of line %d", d.Code, d.Range, rangeText(t, string(source), d.Range), sendLine)
	}
	if len(d.RelatedInformation) != 1 || int(d.RelatedInformation[0].Location.Range.Start.Line) != closeLine-1 ||
		d.RelatedInformation[0].Message != "close" || rangeText(t, string(source), d.RelatedInformation[0].Location.Range) != "close(" {
		t.Errorf("related information = %+v, want the close( of line %d", d.RelatedInformation, closeLine)
	}

	// Code actions: replay and timeline, through the real engine.
	actions, err := se.remote.CodeAction(se.ctx(), &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)},
		Range: d.Range, Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}})
	if err != nil || len(actions) != 4 { // replay, timeline, fuzz again; then the cursor's "fuzz package tests"
		t.Fatalf("code actions = %v, %v", actions, err)
	}
	replay := actions[0].(*protocol.CodeAction).Command
	res, err := se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: replay.Command, Arguments: replay.Arguments})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	var rr ReplayResponse
	if err := json.Unmarshal(res, &rr); err != nil || rr.ID == "" || rr.Status == "" {
		t.Fatalf("replay result = %s, %v", res, err)
	}
	if rr.Reproduced {
		se.waitShown("confirmed: send-on-closed happened again")
	} else {
		se.waitShown("not reproduced")
	}
	timeline := actions[1].(*protocol.CodeAction).Command
	res, err = se.remote.ExecuteCommand(se.ctx(), &protocol.ExecuteCommandParams{Command: timeline.Command, Arguments: timeline.Arguments})
	if err != nil {
		t.Fatalf("timeline: %v", err)
	}
	var tr ShowTimelineResult
	if err := json.Unmarshal(res, &tr); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	// Drawn from the run's trace: the sender's lane with its spawn, the send
	// highlighted, the close on the test goroutine's lane.
	for _, want := range []string{
		"publish_test.go:" + strconv.Itoa(sendLine), "publish_test.go:" + strconv.Itoa(closeLine),
		"(go at publish_test.go:" + strconv.Itoa(sendLine-1) + ")", `class="ev hl"`, `class="edge"`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("timeline page %s lacks %q", tr.Path, want)
		}
	}

	// An edit above the function moves the diagnostic with its line.
	se.edit(testFile, 2)
	waitFor(t, "moved diagnostic", func() bool {
		p, _ := se.client.diagsOf(testFile)
		return len(p.Diagnostics) == 1 && int(p.Diagnostics[0].Range.Start.Line) == sendLine
	})

	// A long campaign is stopped, its processes killed.
	if err := se.remote.DidChangeConfiguration(se.ctx(), &protocol.DidChangeConfigurationParams{
		Settings: []byte(`{"goweave": {"runsPerTest": 0, "budgetPerTest": "5m"}}`)}); err != nil {
		t.Fatal(err)
	}
	before := len(se.client.progressEvents())
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(dir)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the long campaign running", func() bool {
		cp, ok := se.server.campaigns.status(dir)
		return ok && cp.progress.Runs > 0
	})
	if _, err := se.execute("goweave.stop", StopArgs{URI: uri.File(testFile)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stopped campaign's end", func() bool {
		ev := se.client.progressEvents()[before:]
		return len(ev) > 0 && ev[len(ev)-1].kind == "end" && ev[len(ev)-1].value["message"] == "canceled"
	})
	se.shutdown()
	if kids := childProcesses(t); len(kids) > 0 {
		t.Errorf("processes left after shutdown: %q", kids)
	}
}
