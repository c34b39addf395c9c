package lsp

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// testFuncName matches the names go test runs as tests.
var testFuncName = regexp.MustCompile(`^Test([^a-z]|$)`)

// CodeLens implements textDocument/codeLens: "fuzz package tests" on the package clause
// of a test file and "fuzz this test" on each test function; while a campaign runs over
// the package, its state and a "stop" lens instead. Lenses are requested on every
// keystroke, so only this file is parsed (syntax only) and errors are logged, never
// returned.
func (s *Server) CodeLens(ctx context.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	s.campaigns.lensRequested()
	docURI := params.TextDocument.URI
	ts, ok := s.testSyntax(docURI)
	if !ok {
		return []protocol.CodeLens{}, nil
	}
	at := func(p token.Pos) protocol.Range {
		start := ts.position(p)
		return protocol.Range{Start: start, End: start}
	}

	cp, running := s.campaigns.status(filepath.Dir(ts.path))
	var lenses []protocol.CodeLens
	pkgRange := at(ts.file.Package)
	if running && cp.req.test == "" {
		lenses = append(lenses, stateLenses(pkgRange, cp, docURI)...)
	} else {
		lenses = append(lenses, protocol.CodeLens{Range: pkgRange,
			Command: newCommand("fuzz package tests", "goweave.fuzz_package", FuzzPackageArgs{URI: docURI})})
	}
	for _, fn := range ts.tests {
		rng := at(fn.Pos())
		if running && cp.req.test == fn.Name.Name {
			lenses = append(lenses, stateLenses(rng, cp, docURI)...)
			continue
		}
		lenses = append(lenses, protocol.CodeLens{Range: rng,
			Command: newCommand("fuzz this test", "goweave.fuzz_test", FuzzTestArgs{URI: docURI, Test: fn.Name.Name})})
	}
	sort.SliceStable(lenses, func(i, j int) bool {
		a, b := lenses[i].Range.Start, lenses[j].Range.Start
		return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
	})
	return lenses, nil
}

// testSyntax is the syntax of an open or saved test file: its test functions and how
// to turn their positions into the editor's.
type testSyntax struct {
	path  string
	text  string // as the editor has it when open, else as on disk
	file  *ast.File
	tf    *token.File
	tests []*ast.FuncDecl // TestXxx(t *testing.T), in file order
}

// testSyntax parses the test file docURI (syntax only: lenses and cursor actions are
// asked for on every keystroke). ok is false for other files and for a file whose
// package clause does not parse; the reason is logged, never returned.
func (s *Server) testSyntax(docURI uri.URI) (ts testSyntax, ok bool) {
	if !docURI.IsFile() {
		return ts, false
	}
	ts.path = filepath.Clean(docURI.FsPath())
	if !isTestFile(ts.path) {
		return ts, false
	}
	text, _, _, open := s.openText(ts.path)
	if !open {
		b, err := os.ReadFile(ts.path)
		if err != nil {
			s.log.Warn("reading test file", "err", err)
			return ts, false
		}
		text = string(b)
	}
	ts.text = text
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, ts.path, text, parser.SkipObjectResolution)
	if f == nil || f.Name == nil {
		s.log.Debug("test file does not parse", "path", ts.path, "err", err)
		return ts, false
	}
	ts.file, ts.tf = f, fset.File(f.Pos())
	testingNames := testingImportNames(f)
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && isTestFunc(fn, testingNames) {
			ts.tests = append(ts.tests, fn)
		}
	}
	return ts, true
}

// offset is the byte offset of p in the text.
func (ts testSyntax) offset(p token.Pos) int { return ts.tf.Offset(p) }

// position is p as an LSP position (UTF-16 column).
func (ts testSyntax) position(p token.Pos) protocol.Position {
	line := ts.tf.Line(p)
	_, lineText, _ := lineAt(ts.text, line)
	return protocol.Position{Line: uint32(line - 1), Character: utf16Column(lineText, ts.offset(p)-ts.offset(ts.tf.LineStart(line)))}
}

// stateLenses show a running campaign ("fuzzing… 120 runs, 2 findings") and offer to
// stop it.
func stateLenses(rng protocol.Range, cp campaign, docURI uri.URI) []protocol.CodeLens {
	title := "fuzzing… " + plural(cp.progress.Runs, "run") + ", " + plural(cp.progress.Findings, "finding")
	stop := newCommand("stop", "goweave.stop", StopArgs{URI: docURI})
	// The state lens has no action of its own; clicking it stops, like its neighbour.
	state := stop
	state.Title = title
	return []protocol.CodeLens{{Range: rng, Command: state}, {Range: rng, Command: stop}}
}

// testingImportNames are the names under which f imports "testing".
func testingImportNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == "testing" {
			if imp.Name != nil {
				names[imp.Name.Name] = true
			} else {
				names["testing"] = true
			}
		}
	}
	return names
}

// isTestFunc reports whether fn is a test go test runs: TestXxx(t *testing.T).
func isTestFunc(fn *ast.FuncDecl, testingNames map[string]bool) bool {
	if fn.Recv != nil || fn.Type.TypeParams != nil || !testFuncName.MatchString(fn.Name.Name) {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || fn.Type.Results != nil {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && testingNames[pkg.Name]
}
