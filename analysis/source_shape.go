package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"sync"
)

// Two shapes of the code around an operation decide whether a finding is the program's
// design rather than a bug, and a trace cannot show either:
//   - a send or close in a function that defers a recover(): the panic a closed channel
//     raises there is caught on purpose (a pool's Submit that turns "send on closed
//     channel" into ErrStopped);
//   - a plain receive inside a loop of its function: the goroutine consumes a stream, like
//     a range loop (pool workers taking the next task), so which of several identical
//     consumers takes which value does not matter.
// Both are read from the source (parsed once per file version); a file that cannot be read
// or parsed has neither shape, so the finding stays.

// shapeAt describes the innermost function around line of file.
type shapeAt struct {
	recovers bool // the function defers a call that recovers
	inLoop   bool // the line is inside a for or range statement of that function
}

func sourceShape(file string, line int) shapeAt {
	f, fset := parsedFile(file)
	if f == nil {
		return shapeAt{}
	}
	var stack []ast.Node
	var found []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if found != nil || fset.Position(n.Pos()).Line > line || fset.Position(n.End()).Line < line {
			return false
		}
		stack = append(stack, n)
		if _, ok := n.(ast.Stmt); ok && fset.Position(n.Pos()).Line == line {
			found = append([]ast.Node(nil), stack...)
			return false
		}
		return true
	})
	var s shapeAt
	for i := len(found) - 1; i >= 0; i-- {
		switch n := found[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			s.inLoop = true
		case *ast.FuncLit:
			s.recovers = defersRecover(n.Body, f)
			return s
		case *ast.FuncDecl:
			s.recovers = defersRecover(n.Body, f)
			return s
		}
	}
	return shapeAt{}
}

// defersRecover reports whether body defers a function literal that calls recover(), or a
// function of the same file that does (recover only stops a panic when the deferred
// function calls it itself).
func defersRecover(body *ast.BlockStmt, f *ast.File) bool {
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false // a nested function's defers are its own
		}
		d, ok := n.(*ast.DeferStmt)
		if !ok {
			return true
		}
		switch fn := d.Call.Fun.(type) {
		case *ast.FuncLit:
			found = callsRecover(fn.Body)
		case *ast.Ident:
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == fn.Name {
					found = callsRecover(fd.Body)
				}
			}
		}
		return false
	})
	return found
}

func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "recover" && len(c.Args) == 0 {
				found = true
			}
		}
		return !found
	})
	return found
}

type parsedKey struct {
	file  string
	stamp string
}

type parsed struct {
	f    *ast.File
	fset *token.FileSet
}

var (
	parsedMu    sync.Mutex
	parsedCache = map[parsedKey]parsed{}
)

// parsedFile parses file once per version (its modification time and size).
func parsedFile(file string) (*ast.File, *token.FileSet) {
	info, err := os.Stat(file)
	if err != nil {
		return nil, nil
	}
	key := parsedKey{file, info.ModTime().String() + "/" + strconv.FormatInt(info.Size(), 10)}
	parsedMu.Lock()
	p, ok := parsedCache[key]
	parsedMu.Unlock()
	if ok {
		return p.f, p.fset
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		f = nil
	}
	parsedMu.Lock()
	if len(parsedCache) > 1024 {
		clear(parsedCache)
	}
	parsedCache[key] = parsed{f, fset}
	parsedMu.Unlock()
	return f, fset
}
