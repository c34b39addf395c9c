package analysis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goweave/goweave/analysis/trace"
)

// A select case that no operation of the run could serve is a dead case only when no code
// could serve it: the worker's interrupt case whose channel an interrupt method closes is
// merely unexercised by a test that never interrupts (seen on a real worker-pool suite:
// five such warnings, all false). The trace cannot tell the two apart; the source can.
// sourceMayServe type-checks the package that made the channel (its directory's files of
// the same package, imports left empty: only the package's own objects matter) and looks
// at every use of the variable or field the make was stored in.

// sourceMayServe reports whether the source that made a channel at file:line holds an
// operation that could serve a select case on it (a send or close for a receive case, a
// receive for a send case), or lets the channel go where the check cannot follow (passed,
// returned, copied, stored in another variable, an exported name). It returns false only
// when the package was read, the make found, and every use of its destination is known
// not to serve the case; a source that cannot be read leaves the finding as the trace
// shows it. sel is the select's position: when the make's line holds several makes (a
// struct literal making two channels), the one a case of that select uses is meant.
func sourceMayServe(file string, line int, send bool, sel trace.Position) bool {
	if file == "" || line <= 0 {
		return false
	}
	key := servedKey{file: file, line: line, send: send, sel: sel, stamp: dirStamp(filepath.Dir(file))}
	servedMu.Lock()
	v, ok := servedCache[key]
	servedMu.Unlock()
	if ok {
		return v
	}
	v = computeMayServe(file, line, send, sel)
	servedMu.Lock()
	if len(servedCache) > 4096 {
		clear(servedCache)
	}
	servedCache[key] = v
	servedMu.Unlock()
	return v
}

type servedKey struct {
	file  string
	line  int
	send  bool
	sel   trace.Position
	stamp string
}

var (
	servedMu    sync.Mutex
	servedCache = map[servedKey]bool{}
)

// dirStamp changes when a Go file of dir is added, removed or modified (an editor session
// analyzes again after an edit).
func dirStamp(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if info, err := e.Info(); err == nil {
			b.WriteString(e.Name())
			b.WriteString(info.ModTime().String())
		}
	}
	return b.String()
}

func computeMayServe(file string, line int, send bool, sel trace.Position) bool {
	fset := token.NewFileSet()
	target, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	files := []*ast.File{target}
	entries, _ := os.ReadDir(filepath.Dir(file))
	for _, e := range entries {
		name := filepath.Join(filepath.Dir(file), e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || name == file {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err == nil && f.Name.Name == target.Name.Name {
			files = append(files, f)
		}
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	_, _ = conf.Check(target.Name.Name, fset, files, info) // errors (unresolved imports) leave the package's own objects resolved

	dests, ok := makeDestinations(fset, target, line, info)
	if !ok {
		return false // no make on that line the check understands: keep the trace's verdict
	}
	if len(dests) > 1 {
		inSelect := selectOperands(fset, files, sel, info)
		var used []types.Object
		for _, d := range dests {
			if d != nil && inSelect[d] {
				used = append(used, d)
			}
		}
		if len(used) > 0 {
			dests = used
		}
	}
	for _, obj := range dests {
		if obj == nil || obj.Exported() && !isLocal(obj) || usesMayServe(files, info, obj, send) {
			return true // stored where the check cannot follow, usable by another package, or served
		}
	}
	return false
}

// selectOperands are the variables and fields whose channels the cases of the select
// statement at sel operate on (its own cases, not those of selects nested in their bodies).
func selectOperands(fset *token.FileSet, files []*ast.File, sel trace.Position, info *types.Info) map[types.Object]bool {
	objs := map[types.Object]bool{}
	for _, f := range files {
		if fset.Position(f.Pos()).Filename != sel.File {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := n.(*ast.SelectStmt)
			if !ok || fset.Position(s.Pos()).Line != sel.Line {
				return true
			}
			for _, c := range s.Body.List {
				if cc, ok := c.(*ast.CommClause); ok && cc.Comm != nil {
					ast.Inspect(cc.Comm, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok && info.Uses[id] != nil {
							objs[origin(info.Uses[id])] = true
						}
						return true
					})
				}
			}
			return true
		})
	}
	return objs
}

// origin is the declared variable or field of obj: in a generic type each use of a field
// (c.deletables in a method of cache[T]) has a types.Var of its own, which shares only its
// Origin with the field's declaration and the make stored in it.
func origin(obj types.Object) types.Object {
	if v, ok := obj.(*types.Var); ok && v != nil {
		return v.Origin()
	}
	return obj
}

// isLocal reports whether obj is declared inside a function (not a field or a package-level name).
func isLocal(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && !v.IsField() && obj.Parent() != obj.Pkg().Scope()
}

// makeDestinations returns the objects (variable or struct field) that the make calls on line
// of f are stored in; a make stored nowhere the check can name gives a nil object (the channel
// goes where the check cannot follow it). ok is false when the line has no make call.
func makeDestinations(fset *token.FileSet, f *ast.File, line int, info *types.Info) (dests []types.Object, ok bool) {
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if call, isCall := n.(*ast.CallExpr); isCall && fset.Position(call.Pos()).Line == line {
			if id, isID := call.Fun.(*ast.Ident); isID && id.Name == "make" && len(call.Args) > 0 {
				if _, isChan := call.Args[0].(*ast.ChanType); isChan {
					ok = true
					dests = append(dests, destination(stack, call, info))
				}
			}
		}
		stack = append(stack, n)
		return true
	})
	return dests, ok
}

// destination is the object the value e (whose ancestors are stack) is stored in, or nil.
func destination(stack []ast.Node, e ast.Expr, info *types.Info) types.Object {
	var child ast.Node = e
	for i := len(stack) - 1; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			child = p
			continue
		case *ast.KeyValueExpr:
			if p.Value == child {
				if id, ok := p.Key.(*ast.Ident); ok {
					return origin(info.Uses[id]) // a struct literal's field
				}
			}
			return nil
		case *ast.AssignStmt:
			for k, rhs := range p.Rhs {
				if rhs == child && len(p.Lhs) == len(p.Rhs) {
					return objectOf(p.Lhs[k], info)
				}
			}
			return nil
		case *ast.ValueSpec:
			for k, v := range p.Values {
				if v == child && k < len(p.Names) {
					return info.Defs[p.Names[k]]
				}
			}
			return nil
		}
		return nil
	}
	return nil
}

// objectOf is the variable or field an assignment's left-hand side names, or nil.
func objectOf(e ast.Expr, info *types.Info) types.Object {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Defs[x]; o != nil {
			return o
		}
		return origin(info.Uses[x])
	case *ast.SelectorExpr:
		return origin(info.Uses[x.Sel])
	}
	return nil
}

// usesMayServe reports whether some use of obj in files could serve a case of the given
// direction on the channel it holds, or lets the channel escape.
func usesMayServe(files []*ast.File, info *types.Info, obj types.Object, send bool) bool {
	s := serveScan{files: files, info: info, send: send, seen: map[types.Object]bool{}}
	return s.served(obj)
}

// serveScan follows a channel's variable or field through the variables stored into it. A
// field set from another variable (responses: responses, bp.c = c) holds that variable's
// channel, so the variable's sends serve the field's cases: sarama's newBrokerProducer
// stores its local responses, which its bridge goroutine sends on, into bp.responses, and
// a test that builds a brokerProducer with a channel of its own leaves the library's
// select cases on bp.responses unexercised, not dead (2 warnings at the sarama-feeder fix).
type serveScan struct {
	files []*ast.File
	info  *types.Info
	send  bool
	// seen: the objects followed so far; a copy of one into another is the alias being
	// followed, not an escape.
	seen map[types.Object]bool
}

// served reports whether some use of obj could serve the case or lets the channel escape.
func (s *serveScan) served(obj types.Object) bool {
	s.seen[obj] = true
	served := false
	for _, f := range s.files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if served {
				return false
			}
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			if id, ok := n.(*ast.Ident); ok && s.info.Uses[id] != nil && origin(s.info.Uses[id]) == obj {
				served = s.useMayServe(stack, id)
			}
			stack = append(stack, n)
			return true
		})
		if served {
			return true
		}
	}
	return false
}

// storedServed reports whether the value v stored into a followed object is a variable or
// field whose channel may be served (followed in turn); a make or a call stores nothing
// another name can serve.
func (s *serveScan) storedServed(v ast.Expr) bool {
	o := objectOf(v, s.info)
	if o == nil || s.seen[o] {
		return false
	}
	if o.Exported() && !isLocal(o) {
		return true // another package may serve it
	}
	if v, ok := o.(*types.Var); ok && (v.Kind() == types.ParamVar || v.Kind() == types.ResultVar) {
		return true // the caller's channel: the check does not follow calls
	}
	return s.served(o)
}

// useMayServe classifies one use of the channel's variable: what its parent does with it.
func (s *serveScan) useMayServe(stack []ast.Node, id *ast.Ident) bool {
	send := s.send
	var e ast.Node = id
	i := len(stack) - 1
	if i >= 0 {
		if sel, ok := stack[i].(*ast.SelectorExpr); ok && sel.Sel == id {
			e, i = sel, i-1
		}
	}
	for i >= 0 {
		if p, ok := stack[i].(*ast.ParenExpr); ok {
			e, i = p, i-1
			continue
		}
		break
	}
	if i < 0 {
		return true
	}
	switch p := stack[i].(type) {
	case *ast.KeyValueExpr:
		if p.Key == e {
			return s.storedServed(p.Value) // a literal's field key defines it
		}
		if k, ok := p.Key.(*ast.Ident); ok && s.seen[origin(s.info.Uses[k])] {
			return false // stored into the field being followed
		}
		return true // as a value it is copied
	case *ast.AssignStmt:
		for k, l := range p.Lhs {
			if l == e {
				// stored into: a definition, by the value's variable if it names one
				return len(p.Lhs) == len(p.Rhs) && s.storedServed(p.Rhs[k])
			}
		}
		for k, r := range p.Rhs {
			if r == e && len(p.Lhs) == len(p.Rhs) && s.seen[objectOf(p.Lhs[k], s.info)] {
				return false // stored into the object being followed
			}
		}
		return true // copied elsewhere
	case *ast.SendStmt:
		if p.Chan == e {
			return !send // a send serves a receive case
		}
		return true // the channel itself is sent: it escapes
	case *ast.UnaryExpr:
		if p.Op == token.ARROW {
			return send // a receive serves a send case
		}
		return true
	case *ast.RangeStmt:
		return send
	case *ast.BinaryExpr:
		return false // compared (with nil, mostly)
	case *ast.CallExpr:
		if fn, ok := p.Fun.(*ast.Ident); ok {
			switch fn.Name {
			case "close":
				return !send
			case "len", "cap":
				return false
			}
		}
		return true // passed to a function
	}
	return true
}

// emptyImporter gives every import as an empty package: the check needs only the objects
// of the package under study, and reading export data would cost a build.
type emptyImporter struct{}

func (emptyImporter) Import(path string) (*types.Package, error) {
	name := path[strings.LastIndex(path, "/")+1:]
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}
