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
	if !docURI.IsFile() {
		return []protocol.CodeLens{}, nil
	}
	path := filepath.Clean(docURI.FsPath())
	if !isTestFile(path) {
		return []protocol.CodeLens{}, nil
	}
	text, _, _, open := s.openText(path)
	if !open {
		b, err := os.ReadFile(path)
		if err != nil {
			s.log.Warn("code lens: reading file", "err", err)
			return []protocol.CodeLens{}, nil
		}
		text = string(b)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, text, parser.SkipObjectResolution)
	if f == nil || f.Name == nil {
		s.log.Debug("code lens: file does not parse", "path", path, "err", err)
		return []protocol.CodeLens{}, nil
	}
	tf := fset.File(f.Pos())
	at := func(p token.Pos) protocol.Range {
		line := tf.Line(p)
		_, lineText, _ := lineAt(text, line)
		start := protocol.Position{Line: uint32(line - 1), Character: utf16Column(lineText, tf.Offset(p)-tf.Offset(tf.LineStart(line)))}
		return protocol.Range{Start: start, End: start}
	}

	dir := filepath.Dir(path)
	cp, running := s.campaigns.status(dir)
	var lenses []protocol.CodeLens
	pkgRange := at(f.Package)
	if running && cp.req.test == "" {
		lenses = append(lenses, stateLenses(pkgRange, cp, docURI)...)
	} else {
		lenses = append(lenses, protocol.CodeLens{Range: pkgRange,
			Command: newCommand("fuzz package tests", "goweave.fuzz_package", FuzzPackageArgs{URI: docURI})})
	}
	testingNames := testingImportNames(f)
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || !isTestFunc(fn, testingNames) {
			continue
		}
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
