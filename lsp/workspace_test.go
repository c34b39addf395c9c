package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// TestCommandsOnlyInsideWorkspace: fuzz commands naming anything outside the workspace
// folders (/etc, /, /proc/self, another module, a symbolic link leading out) are refused
// with an error that says so, and the engine is never called; a folder added with
// didChangeWorkspaceFolders is accepted, and once removed its findings can no longer be
// replayed.
func TestCommandsOnlyInsideWorkspace(t *testing.T) {
	dir, _ := buggyPackage(t)
	other, otherTest := buggyPackage(t)
	link := filepath.Join(dir, "escape")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	// The campaign of the other folder finds a bug; the workspace's finds nothing.
	findOther := func(ctx context.Context, cfg fuzzer.Config, progress func(fuzzer.Progress)) (*fuzzer.Report, error) {
		if cfg.Dir == other {
			return reportOf(sendOnClosed(otherTest, analysis.Actual))(ctx, cfg, progress)
		}
		return reportOf()(ctx, cfg, progress)
	}
	engine := &fakeEngine{fuzz: findOther, replay: func(context.Context, fuzzer.Config, fuzzer.Finding) (*ReplayResult, error) {
		t.Error("replay ran for a folder that left the workspace")
		return &ReplayResult{}, nil
	}}
	se := newSession(t, engine, sessionOption{caps: fullCaps(), root: dir})

	outside := []string{"/etc/passwd", "/etc", "/", "/proc/self", otherTest, other, filepath.Join(link, "buggy_test.go")}
	for _, path := range outside {
		u := string(uri.File(path))
		for _, c := range []struct {
			name string
			args any
		}{
			{"goweave.fuzz_test", FuzzTestArgs{URI: uri.URI(u), Test: "TestSend"}},
			{"goweave.fuzz_package", FuzzPackageArgs{URI: uri.URI(u)}},
		} {
			_, err := se.execute(c.name, c.args)
			if err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
				t.Errorf("%s %s: error %v, want it refused as outside the workspace", c.name, path, err)
			}
		}
	}
	// Opening or saving a test file outside the workspace starts nothing either.
	se.open(otherTest)
	if err := se.remote.DidSave(se.ctx(), &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(otherTest)}}); err != nil {
		t.Fatal(err)
	}
	// A campaign in the workspace, queued after anything the above could have queued
	// (one campaign at a time, first come first served): once it has run, every campaign
	// requested before it has reached the engine.
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(dir)}); err != nil {
		t.Fatalf("fuzz_package inside the workspace: %v", err)
	}
	waitFor(t, "the workspace campaign", func() bool { _, _, returned := engine.stats(); return returned >= 1 })
	engine.mu.Lock()
	for _, cfg := range engine.configs {
		if cfg.Dir != dir {
			t.Errorf("the engine fuzzed %s, outside the workspace", cfg.Dir)
		}
	}
	engine.mu.Unlock()

	// Adding the other folder makes it fuzzable.
	if err := se.remote.DidChangeWorkspaceFolders(se.ctx(), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Added: []protocol.WorkspaceFolder{{URI: uri.File(other), Name: "other"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(otherTest)}); err != nil {
		t.Fatalf("fuzz_package in an added folder: %v", err)
	}
	id := sendOnClosed(otherTest, analysis.Actual).ID
	waitFor(t, "the campaign in the added folder to publish its finding", func() bool {
		_, ok := se.server.findings.get(id)
		return ok
	})

	// Once the folder is removed, its finding is not replayed.
	if err := se.remote.DidChangeWorkspaceFolders(se.ctx(), &protocol.DidChangeWorkspaceFoldersParams{Event: protocol.WorkspaceFoldersChangeEvent{
		Removed: []protocol.WorkspaceFolder{{URI: uri.File(other), Name: "other"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := se.execute("goweave.replay", ReplayArgs{ID: id}); err == nil || !strings.Contains(err.Error(), "outside the workspace folders") {
		t.Errorf("replay after the folder was removed: %v", err)
	}
	se.shutdown()
}

// TestNoWorkspaceFolder: without any workspace folder nothing is fuzzed, and the error says
// to open the module's folder.
func TestNoWorkspaceFolder(t *testing.T) {
	_, testFile := buggyPackage(t)
	engine := &fakeEngine{fuzz: reportOf()}
	se := newSession(t, engine, sessionOption{caps: fullCaps()})
	se.open(testFile)
	_, err := se.execute("goweave.fuzz_package", FuzzPackageArgs{URI: uri.File(testFile)})
	if err == nil || !strings.Contains(err.Error(), "no workspace folder is open") {
		t.Errorf("fuzz_package without a workspace folder: %v", err)
	}
	if calls, _, _ := engine.stats(); calls != 0 {
		t.Errorf("the engine ran %d campaigns without a workspace folder", calls)
	}
	se.shutdown()
}
