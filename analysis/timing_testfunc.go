package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"sync"
)

// The test's own code, for the timing verdict of a deadlock (TimingFor): lines written inside a Test function of a _test.go file (its body
// and the closures in it). A helper or a type's method there is code under test as much as
// the module's (a kernel of the acceptance corpus keeps its whole program in a _test.go
// file); only what the Test function itself does is the test's scaffolding.

var testFuncs struct {
	sync.Mutex
	byFile map[string][][2]int // the line ranges of a file's Test functions
}

// FailedInHelper reports whether f is a flaky failure logged outside a Test function (a
// helper without t.Helper): its line is shared by every test that calls the helper, so
// each test's failure is a finding of its own (Group, and the campaign's fingerprints).
func FailedInHelper(f *Finding) bool {
	return f.Kind == "flaky-failure" && len(f.Positions) > 0 && !inTestFunc(f.Positions[0].File, f.Positions[0].Line)
}

// inTestFunc reports whether line of file is inside a Test function's declaration.
func inTestFunc(file string, line int) bool {
	if !strings.HasSuffix(file, "_test.go") {
		return false
	}
	testFuncs.Lock()
	defer testFuncs.Unlock()
	ranges, ok := testFuncs.byFile[file]
	if !ok {
		ranges = testFuncRanges(file)
		if testFuncs.byFile == nil {
			testFuncs.byFile = map[string][][2]int{}
		}
		testFuncs.byFile[file] = ranges
	}
	for _, r := range ranges {
		if r[0] <= line && line <= r[1] {
			return true
		}
	}
	return false
}

// testFuncRanges are the first and last lines of the Test functions of file (none when it
// cannot be read or parsed).
func testFuncRanges(file string) [][2]int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out [][2]int
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Body == nil {
			continue
		}
		out = append(out, [2]int{fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
	}
	return out
}
