package analysis

import (
	"go/ast"
	"path/filepath"
	"strings"
)

// The test's calls into the package's code. A trace position is the innermost frame of the
// module (the recorder keeps no stacks), so an operation inside the package's code (a
// library's Add and Wait) is reported there, at the lines to fix; the user also wants to
// see which of the test's calls led to it. The test function is read from the source: the
// calls in its body (closures included) of the function around each operation, or, for an
// operation in a function literal, of the named function that encloses it (a goroutine
// started by the library's Go method: the test's call of Go). Calls made through helpers
// are not followed: only what the test calls directly is named.

// testCalls returns, for the operations ops outside _test.go files, the test's calls of the
// functions they ran in, as positions with role "test's call of NAME" (none when the
// analysis does not know the test: Options.Test and Dir).
func (r *Result) testCalls(ops ...int32) []Position {
	if r.opts.Test == "" || r.opts.Dir == "" {
		return nil
	}
	var out []Position
	seen := map[string]bool{}
	for _, i := range ops {
		if i < 0 {
			continue
		}
		p := r.Trace.Position(r.Trace.Events[i].Pos)
		if p.File == "" || strings.HasSuffix(p.File, "_test.go") {
			continue
		}
		name := calledName(p.Func)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if q, ok := testCallOf(r.opts.Dir, r.opts.Test, name); ok {
			out = append(out, q)
		}
	}
	return out
}

// calledName is the name a caller uses for the named function around a frame of function fn
// (a runtime function name): "example.com/pool.(*Pool).Go.func1" -> "Go", "example.com/pool.run"
// -> "run". "" for a package-level closure ("pkg.init.func1", "pkg.glob..func1").
func calledName(fn string) string {
	if k := strings.LastIndex(fn, "/"); k >= 0 {
		fn = fn[k+1:]
	}
	_, rest, ok := strings.Cut(fn, ".") // drop the package name
	if !ok {
		return ""
	}
	// without a generic's type arguments; a method is (*T).M... or T.M...
	rest = strings.ReplaceAll(rest, "[...]", "")
	if strings.HasPrefix(rest, "(") {
		if k := strings.Index(rest, ")."); k >= 0 {
			rest = rest[k+2:]
		}
	} else if k := strings.Index(rest, "."); k >= 0 && !strings.HasPrefix(rest[k+1:], "func") && !strings.HasPrefix(rest, "glob") {
		rest = rest[k+1:] // T.M: a method of a value receiver
	}
	name, _, _ := strings.Cut(rest, ".")
	if name == "" || name == "init" || strings.HasPrefix(name, "glob") || strings.HasPrefix(name, "func") {
		return ""
	}
	return name
}

// testCallOf finds the first call of a function or method called name in the body of the
// test function test, in the _test.go files of dir.
func testCallOf(dir, test, name string) (Position, bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, file := range files {
		f, fset := parsedFile(file)
		if f == nil {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != test || fd.Body == nil {
				continue
			}
			var at *ast.CallExpr
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if at != nil || !ok {
					return at == nil
				}
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr:
					if fun.Sel.Name == name {
						at = call
					}
				case *ast.Ident:
					if fun.Name == name {
						at = call
					}
				}
				return at == nil
			})
			if at == nil {
				return Position{}, false
			}
			p := fset.Position(at.Pos())
			abs := file
			if a, err := filepath.Abs(file); err == nil {
				abs = a
			}
			return Position{Role: "test's call of " + name, File: abs, Line: p.Line, Column: p.Column}, true
		}
	}
	return Position{}, false
}
