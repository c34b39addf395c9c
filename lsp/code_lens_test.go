package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/fuzzer"
)

const lensSource = `package lenses

import (
	"testing"
	tt "testing"
)

func TestA(t *testing.T) {}

func Testlower(t *testing.T) {}

func TestB(t *tt.T) {}

func Test(t *testing.T) {}

func Test_under(t *testing.T) {}

func TestBench(b *testing.B) {}

func TestTwo(t *testing.T, x int) {}

type S struct{}

func (S) TestMethod(t *testing.T) {}

func helper(t *testing.T) {}
`

func lensTitles(lenses []protocol.CodeLens) []string {
	var out []string
	for _, l := range lenses {
		title := l.Command.Title
		if len(l.Command.Arguments) == 1 {
			var args map[string]any
			_ = json.Unmarshal(l.Command.Arguments[0], &args)
			if test, ok := args["test"]; ok {
				title += " " + test.(string)
			}
		}
		out = append(out, title)
	}
	return out
}

// TestCodeLenses: a lens on the package clause and one per test function, in order,
// with the range at the start of the declaration.
func TestCodeLenses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lenses_test.go")
	write(t, path, lensSource)
	se := newSession(t, &fakeEngine{}, sessionOption{root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})

	lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	if err != nil {
		t.Fatal(err)
	}
	got := lensTitles(lenses)
	want := []string{"fuzz package tests", "fuzz this test TestA", "fuzz this test TestB", "fuzz this test Test", "fuzz this test Test_under"}
	if len(got) != len(want) {
		t.Fatalf("lenses = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("lens %d = %q, want %q", i, got[i], want[i])
		}
	}
	if r := lenses[1].Range; r.Start != r.End || int(r.Start.Line) != lineOf(t, lensSource, "func TestA")-1 || r.Start.Character != 0 {
		t.Errorf("TestA lens range = %v, want empty at the start of line %d", r, lineOf(t, lensSource, "func TestA"))
	}
	if lenses[1].Command.Command != "goweave.fuzz_test" || lenses[0].Command.Command != "goweave.fuzz_package" {
		t.Errorf("commands = %s, %s", lenses[0].Command.Command, lenses[1].Command.Command)
	}

	// Lenses come from the open buffer, not the disk.
	se.open(path)
	err = se.remote.DidChange(se.ctx(), &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 7, Character: 9}, End: protocol.Position{Line: 7, Character: 10}}, Text: "Renamed"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lenses, err = se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := lensTitles(lenses); len(got) < 2 || got[1] != "fuzz this test TestRenamed" {
		t.Errorf("lenses after rename = %q", got)
	}

	// A file that does not parse, or is not a test file, gets no lenses and no error.
	write(t, filepath.Join(dir, "broken_test.go"), "package lenses\nfunc TestX(t *testing.T) {")
	write(t, filepath.Join(dir, "plain.go"), "package lenses\n")
	for _, name := range []string{"plain.go", "missing_test.go"} {
		lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(dir, name))}})
		if err != nil || len(lenses) != 0 {
			t.Errorf("lenses of %s = %v, %v; want none and no error", name, lenses, err)
		}
	}
	se.shutdown()
}

// TestCodeLensesShowRunningCampaign: while a campaign runs the lenses show its state
// and a stop lens, which stops it.
func TestCodeLensesShowRunningCampaign(t *testing.T) {
	dir, testFile := buggyPackage(t)
	started := make(chan fuzzer.Config, 1)
	engine := &fakeEngine{fuzz: blockingFuzz(started)}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)}); err != nil {
		t.Fatal(err)
	}
	<-started
	lenses, err := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}})
	if err != nil {
		t.Fatal(err)
	}
	got := lensTitles(lenses)
	if len(got) < 2 || got[0] != "fuzzing… 120 runs, 2 findings" || got[1] != "stop" || lenses[1].Command.Command != "goweave.stop" {
		t.Fatalf("lenses while fuzzing = %q", got)
	}
	var args StopArgs
	if err := json.Unmarshal(lenses[1].Command.Arguments[0], &args); err != nil {
		t.Fatal(err)
	}
	// The start's refresh goes out before the stop: refreshes asked for while none has been
	// sent yet collapse into one (refreshLenses), and a stop within milliseconds of the
	// start (here, on a loaded machine) would leave one refresh for both.
	waitFor(t, "the start's lens refresh", func() bool {
		se.client.mu.Lock()
		defer se.client.mu.Unlock()
		return se.client.refreshes >= 1
	})
	res, err := se.execute("goweave.stop", args)
	if err != nil {
		t.Fatal(err)
	}
	var stopped StopResult
	if err := json.Unmarshal(res, &stopped); err != nil || stopped.Stopped != 1 {
		t.Fatalf("stop result = %s, %v; want 1 campaign stopped", res, err)
	}
	waitFor(t, "campaign end", func() bool { _, running, returned := engine.stats(); return running == 0 && returned == 1 })
	waitFor(t, "fuzz lenses back", func() bool {
		lenses, _ := se.remote.CodeLens(se.ctx(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}})
		got := lensTitles(lenses)
		return len(got) > 0 && got[0] == "fuzz package tests"
	})
	// The client is asked to refresh lenses when the campaign starts and when it ends.
	waitFor(t, "two lens refreshes", func() bool {
		se.client.mu.Lock()
		defer se.client.mu.Unlock()
		return se.client.refreshes >= 2
	})
	se.shutdown()
}

// TestLensFollowsProgress: a progress report of a campaign is followed by a code lens
// refresh once the client has asked for the lenses of the previous one, so the lens above
// the test shows the runs the status bar shows (it lagged, as a refresh was sent at most
// once a second, and VS Code restarts its lens debounce on every refresh).
func TestLensFollowsProgress(t *testing.T) {
	dir, testFile := buggyPackage(t)
	next := make(chan struct{})
	engine := &fakeEngine{fuzz: func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		progress(fuzzer.Progress{Test: "TestSend", TestsTotal: 1, Runs: 5})
		select {
		case <-next:
		case <-ctx.Done():
		}
		progress(fuzzer.Progress{Test: "TestSend", TestsTotal: 1, Runs: 9})
		<-ctx.Done()
		return &fuzzer.Report{}, ctx.Err()
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir, initOptions: map[string]any{"backgroundFuzzing": false}})
	se.open(testFile)
	// Like VS Code, the client asks for the lenses of the open file after each refresh (the
	// server sends its next refresh only then).
	lensesOfFile := func() ([]protocol.CodeLens, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return se.remote.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(testFile)}})
	}
	se.client.mu.Lock()
	se.client.onRefresh = func() { _, _ = lensesOfFile() }
	se.client.mu.Unlock()
	if _, err := se.execute("goweave.fuzz_test", FuzzTestArgs{URI: uri.File(testFile), Test: "TestSend"}); err != nil {
		t.Fatal(err)
	}
	// reportThenRefresh waits for the report of runs, then for a refresh after it.
	reportThenRefresh := func(runs string) {
		t.Helper()
		waitFor(t, "the report of "+runs+" and a lens refresh after it", func() bool {
			se.client.mu.Lock()
			defer se.client.mu.Unlock()
			at := slices.IndexFunc(se.client.order, func(e string) bool { return strings.HasPrefix(e, "report: "+runs+",") })
			return at >= 0 && slices.Contains(se.client.order[at:], "refresh")
		})
	}
	reportThenRefresh("5 runs")
	// Reports are at most every 200 ms; the next one must not be one the server skips.
	time.Sleep(250 * time.Millisecond)
	close(next)
	reportThenRefresh("9 runs")
	lenses, err := lensesOfFile()
	if err != nil {
		t.Fatal(err)
	}
	if titles := strings.Join(lensTitles(lenses), "|"); !strings.Contains(titles, "fuzzing… 9 runs") {
		t.Errorf("lenses after the refresh = %q, want the runs of the last report", titles)
	}
	se.shutdown()
}
