package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/goweave/goweave/internal/astname"
)

// A leaked goroutine that waits for a close names it. A type's goroutine that waits for
// its Close to close a channel is leaked by every test that never calls Close: true, but
// "blocked forever in a select" names neither the missing Close nor that the object was the
// test's. The trace has the channel's make; the close statements that could free it are
// read from the package's source: the make's destination (a variable or struct field, as
// chan_source.go finds it) and every close(x) whose x names that same variable or field.
// This is static matching on the name: a close through a copy of the channel (another
// variable, a parameter) is not found, and then nothing is named.

// closeSite is a close statement in the source.
type closeSite struct {
	File   string
	Line   int
	Column int    // of the close call, 1-based bytes, for the editor
	Text   string // the call as written: close(b.input)
	Func   string // the function it is in: Close, (*Batcher).Close
	// Exported: the function is exported (a method of an exported name, or a function),
	// so a user of the package, a test, can call it.
	Exported bool
	// LitFrom: the first line of the innermost function literal the close is in (0: none),
	// where a goroutine running it was started (go func() {...}())
	LitFrom int
}

// closeFacts is what the source says of a channel made at a line.
type closeFacts struct {
	closes   []closeSite
	sends    bool   // some send on the same variable or field
	makeFunc string // the function the make is in
	// testCalls: where _test.go files of the package's directory call the make's function
	// (or a wrapper of it that returns the object), in file order.
	testCalls []testCallSite
	// helpersOf: per test function of the _test.go files, the helpers (functions of those
	// files that are no test) its body calls
	helpersOf map[string]map[string]bool
}

// testCallSite is one call of a maker in a _test.go file.
type testCallSite struct {
	at    string // file:line
	fn    string // the top-level function the call is in
	entry bool   // that function is a Test, Benchmark, Example or Fuzz function
}

// testCall is where the test test (a top-level Test function's name; "" unknown) calls the
// maker: in its own body, else in a helper of the test files its body calls (not another
// test's body, nor a helper only other tests call); "" when it does not. Unknown test: the
// first call of any test file.
func (f closeFacts) testCall(test string) string {
	helper := ""
	for _, c := range f.testCalls {
		switch {
		case test == "" || c.fn == test:
			return c.at
		case !c.entry && helper == "" && f.helpersOf[test][c.fn]:
			helper = c.at
		}
	}
	return helper
}

type closeKey struct {
	file    string
	line, k int
	stamp   string
}

var (
	closeMu    sync.Mutex
	closeCache = map[closeKey]closeFacts{}
)

// closesOf returns the close facts of the channel made by the k-th make call (in source
// order) at file:line; ok is false when the source cannot be read or the make's
// destination cannot be named.
func closesOf(file string, line, k int) (closeFacts, bool) {
	if file == "" || line <= 0 || strings.HasSuffix(file, "_test.go") {
		return closeFacts{}, false
	}
	key := closeKey{file, line, k, dirStamp(filepath.Dir(file))}
	closeMu.Lock()
	v, ok := closeCache[key]
	closeMu.Unlock()
	if !ok {
		v = computeCloses(file, line, k)
		closeMu.Lock()
		if len(closeCache) > 4096 {
			clear(closeCache)
		}
		closeCache[key] = v
		closeMu.Unlock()
	}
	return v, v.makeFunc != ""
}

func computeCloses(file string, line, k int) closeFacts {
	fset := token.NewFileSet()
	target, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return closeFacts{}
	}
	files := []*ast.File{target}
	var tests []*ast.File
	dir := filepath.Dir(file)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := filepath.Join(dir, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || name == file {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		switch {
		case err != nil:
		case strings.HasSuffix(e.Name(), "_test.go"):
			tests = append(tests, f)
		case f.Name.Name == target.Name.Name:
			files = append(files, f)
		}
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	_, _ = conf.Check(target.Name.Name, fset, files, info)
	dests, ok := makeDestinations(fset, target, line, info)
	if !ok || len(dests) == 0 || dests[k%len(dests)] == nil {
		return closeFacts{} // (k counts on across a loop's iterations making one channel each)
	}
	obj := dests[k%len(dests)]
	var out closeFacts
	// the closes of obj and the function the make is in
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if f == target && fset.Position(fd.Pos()).Line <= line && line <= fset.Position(fd.End()).Line {
				out.makeFunc = fd.Name.Name
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SendStmt:
					if objectOf(x.Chan, info) == obj {
						out.sends = true
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "close" && len(x.Args) == 1 && objectOf(x.Args[0], info) == obj {
						p := fset.Position(x.Pos())
						out.closes = append(out.closes, closeSite{File: p.Filename, Line: p.Line, Column: p.Column,
							Text: strings.TrimSpace(sourceText(fset, x)), Func: astname.Func(fd), Exported: funcExported(fd),
							LitFrom: litAround(fset, fd, x)})
					}
				}
				return true
			})
		}
	}
	if out.makeFunc == "" {
		return closeFacts{}
	}
	// who the test would call to make it: the make's function, or one that calls it and
	// returns the object whose method closes it (a wrapper of its constructor). One that
	// calls it for an object of its own (NewPool making a worker) owns what it made: its
	// close is that object's job, not the test's.
	owners := map[string]bool{} // receiver types of the closing methods
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 && closesIn(fd, out.closes) {
				owners[typeName(fd.Recv.List[0].Type)] = true
			}
		}
	}
	makers := map[string]bool{out.makeFunc: true}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && calls(fd.Body, out.makeFunc) && returnsOwner(fd, owners) {
				makers[fd.Name.Name] = true
			}
		}
	}
	out.helpersOf = map[string]map[string]bool{}
	for _, f := range tests {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			entry := fd.Recv == nil && testEntry(fd.Name.Name)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if makers[calleeName(c)] {
					p := fset.Position(c.Pos())
					out.testCalls = append(out.testCalls, testCallSite{at: filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line),
						fn: fd.Name.Name, entry: entry})
				}
				if entry {
					if out.helpersOf[fd.Name.Name] == nil {
						out.helpersOf[fd.Name.Name] = map[string]bool{}
					}
					out.helpersOf[fd.Name.Name][calleeName(c)] = true
				}
				return true
			})
		}
	}
	return out
}

// litAround is the first line of the innermost function literal of fd around n, 0 for none.
func litAround(fset *token.FileSet, fd *ast.FuncDecl, n ast.Node) int {
	var in *ast.FuncLit
	ast.Inspect(fd.Body, func(m ast.Node) bool {
		if lit, ok := m.(*ast.FuncLit); ok && lit.Pos() <= n.Pos() && n.End() <= lit.End() {
			in = lit // the walk goes outer to inner: the last one is the innermost
		}
		return true
	})
	if in == nil {
		return 0
	}
	return fset.Position(in.Pos()).Line
}

// testEntry reports whether a top-level function of a _test.go file is one go test runs.
func testEntry(name string) bool {
	for _, p := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// closesIn reports whether one of closes is in function fd.
func closesIn(fd *ast.FuncDecl, closes []closeSite) bool {
	name := astname.Func(fd)
	for _, c := range closes {
		if c.Func == name {
			return true
		}
	}
	return false
}

// returnsOwner reports whether fd returns a value of one of the types owners (T or *T);
// with no closing method (a close in a plain function) any caller counts.
func returnsOwner(fd *ast.FuncDecl, owners map[string]bool) bool {
	if len(owners) == 0 {
		return true
	}
	if fd.Type.Results == nil {
		return false
	}
	for _, r := range fd.Type.Results.List {
		if owners[typeName(r.Type)] {
			return true
		}
	}
	return false
}

// typeName is the name of a type expression T, *T, T[X] or pkg.T; "" for others.
func typeName(e ast.Expr) string {
	switch t := ast.Unparen(e).(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// calls reports whether body calls a function or method named name.
func calls(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && calleeName(c) == name {
			found = true
		}
		return !found
	})
	return found
}

// calleeName is the name a call calls: f(), pkg.F(), x.M().
func calleeName(c *ast.CallExpr) string {
	switch f := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.IndexExpr: // a generic function instantiated
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// funcExported reports whether code outside the package can call the function: its name
// is exported (a method of an unexported type is reachable too, through an interface or a
// returned value, so the receiver's name does not count).
func funcExported(fd *ast.FuncDecl) bool { return fd.Name.IsExported() }

func sourceText(fset *token.FileSet, n ast.Node) string {
	p, e := fset.Position(n.Pos()), fset.Position(n.End())
	if p.Line != e.Line {
		return ""
	}
	line := sourceLine(p.Filename, p.Line)
	if p.Column-1 < 0 || e.Column-1 > len(line) || p.Column > e.Column {
		return ""
	}
	return line[p.Column-1 : e.Column-1]
}
