package selectcase

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Case is one communication clause of a select statement, as written.
type Case struct {
	Index  int    // 0-based position among the select's communication clauses (default not counted)
	Send   bool   // a send clause; otherwise a receive
	Line   int    // of the clause's `case` keyword
	Column int    // 1-based byte column of the `case` keyword
	Text   string // the communication as written, e.g. "<-done" or "out <- v"
	// FailsTest: in a _test.go file, the clause's body fails the test (t.Error, t.Errorf,
	// t.Fatal, t.Fatalf, t.Fail, t.FailNow as statements): a check that the case does not
	// happen, whose never firing is the test passing.
	FailsTest bool
}

// Select is one select statement's clauses and the runtime's view of them.
type Select struct {
	File    string
	Line    int    // of the `select` keyword
	Cases   []Case // communication clauses in source order
	Default int    // line of the default clause; 0 = none
	order   []int  // runtime case index -> index in Cases
}

// Source returns the clause the runtime's case index k stands for.
func (s *Select) Source(k int) (Case, bool) {
	if k < 0 || k >= len(s.order) {
		return Case{}, false
	}
	return s.Cases[s.order[k]], true
}

// Runtime returns the runtime's case index of the i-th clause in source order, or -1.
func (s *Select) Runtime(i int) int {
	for k, j := range s.order {
		if j == i {
			return k
		}
	}
	return -1
}

// ErrChanged: the source has no select at the recorded line with the recorded cases (the
// file changed since the run, or the position is not a select's).
var ErrChanged = errors.New("no select with the recorded cases; the source may have changed since the run")

// Find returns the select statement recorded at file:line whose cases, in the runtime's
// order, have the directions sends (true = send). line is the `select` keyword's, or for a
// select with one case and a default (compiled to a non-blocking operation and recorded at
// its case) that clause's line.
func Find(file string, line int, sends []bool) (*Select, error) {
	nsend := 0
	for i, s := range sends {
		if s {
			if i != nsend {
				return nil, fmt.Errorf("recorded cases are not in the runtime's order (sends first)")
			}
			nsend++
		}
	}
	return find(file, line, len(sends), func(s *Select) bool { return s.matches(sends, nsend) })
}

// FindCount is Find for a caller that knows only the number of recorded cases, not their
// directions: the select's own clauses give the order.
func FindCount(file string, line, ncases int) (*Select, error) {
	return find(file, line, ncases, func(s *Select) bool { return len(s.Cases) == ncases && s.ownOrder() })
}

// At is Find for a caller that knows only where the select was recorded (a schedule's
// preference): the select's own clauses give the number of cases and their order.
func At(file string, line int) (*Select, error) {
	return find(file, line, -1, (*Select).ownOrder)
}

// ownOrder sets the runtime's order from the clauses' own directions.
func (s *Select) ownOrder() bool {
	sends := make([]bool, len(s.Cases))
	nsend := 0
	for _, c := range s.Cases {
		if c.Send {
			sends[nsend] = true
			nsend++
		}
	}
	return s.matches(sends, nsend)
}

func find(file string, line, ncases int, matches func(*Select) bool) (*Select, error) {
	p, err := parse(file)
	if err != nil {
		return nil, err
	}
	var found *Select
	ambiguous := false
	for _, parsed := range p.selects {
		s := *parsed // matches sets the order of this lookup's copy; the parse is shared
		s.File = file
		if !s.at(line, ncases) || !matches(&s) {
			continue
		}
		if found != nil {
			ambiguous = true
			break
		}
		found = &s
	}
	if ambiguous {
		return nil, fmt.Errorf("%s:%d has more than one select with these cases", filepath.Base(file), line)
	}
	if found == nil {
		return nil, fmt.Errorf("%s:%d has %w", filepath.Base(file), line, ErrChanged)
	}
	return found, nil
}

// at reports whether a select recorded at line with n cases (-1: unknown) can be this one.
func (s *Select) at(line, n int) bool {
	if s.Line == line {
		return true
	}
	return n <= 1 && len(s.Cases) == 1 && s.Default != 0 && s.Cases[0].Line == line
}

// matches reports whether the clauses have the recorded directions, and sets the order.
func (s *Select) matches(sends []bool, nsend int) bool {
	if len(sends) != len(s.Cases) {
		return false
	}
	var sendIdx, recvIdx []int
	for i, c := range s.Cases {
		if c.Send {
			sendIdx = append(sendIdx, i)
		} else {
			recvIdx = append(recvIdx, i)
		}
	}
	if len(sendIdx) != nsend {
		return false
	}
	s.order = append(sendIdx, recvIdx...)
	return true
}

// Name describes the runtime's case k (-1: the default) of the select recorded at
// file:line with case directions sends, for people: "case 2 (`<-done`, line 41)" in the
// order the user wrote; when the source cannot say, the runtime's numbering and why.
func Name(file string, line int, sends []bool, k int) string {
	s, err := Find(file, line, sends)
	if err == nil {
		return s.Name(k)
	}
	if k < 0 {
		return "the default case"
	}
	return fmt.Sprintf("case %d in the runtime's order, send cases first (%v)", k+1, err)
}

// Name describes the runtime's case k (-1: the default) for people.
func (s *Select) Name(k int) string {
	if k < 0 {
		if s.Default != 0 {
			return fmt.Sprintf("the default case (line %d)", s.Default)
		}
		return "the default case"
	}
	c, ok := s.Source(k)
	if !ok {
		return fmt.Sprintf("case %d in the runtime's order (the select has %d cases)", k+1, len(s.Cases))
	}
	return fmt.Sprintf("case %d (`%s`, line %d)", c.Index+1, c.Text, c.Line)
}

// parsed is one version of a source file: its select statements, in source order.
type parsed struct {
	fset    *token.FileSet
	src     []byte
	test    bool      // a _test.go file
	selects []*Select // read-only once parsed: lookups copy
}

type cacheKey struct{ path, version string }

var (
	cacheMu sync.Mutex
	cache   = map[cacheKey]*parsed{}
)

// parse parses file once per version (modification time and size).
func parse(file string) (*parsed, error) {
	info, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("%s could not be read", filepath.Base(file))
	}
	key := cacheKey{file, info.ModTime().String() + "/" + strconv.FormatInt(info.Size(), 10)}
	cacheMu.Lock()
	p, ok := cache[key]
	cacheMu.Unlock()
	if ok {
		return p, nil
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s could not be read", filepath.Base(file))
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", filepath.Base(file), err)
	}
	p = &parsed{fset: fset, src: src, test: strings.HasSuffix(file, "_test.go")}
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.SelectStmt); ok {
			p.selects = append(p.selects, p.describe(st))
		}
		return true
	})
	cacheMu.Lock()
	if len(cache) >= 256 {
		clear(cache)
	}
	cache[key] = p
	cacheMu.Unlock()
	return p, nil
}

// describe lists the clauses of st.
func (p *parsed) describe(st *ast.SelectStmt) *Select {
	s := &Select{Line: p.fset.Position(st.Select).Line}
	for _, stmt := range st.Body.List {
		cc, ok := stmt.(*ast.CommClause)
		if !ok {
			continue
		}
		pos := p.fset.Position(cc.Case)
		if cc.Comm == nil {
			s.Default = pos.Line
			continue
		}
		_, send := cc.Comm.(*ast.SendStmt)
		s.Cases = append(s.Cases, Case{Index: len(s.Cases), Send: send, Line: pos.Line, Column: pos.Column, Text: p.text(cc.Comm),
			FailsTest: p.test && failsTest(cc.Body)})
	}
	return s
}

// failsTest reports whether body, a test's select clause, calls one of testing's failing
// methods as a statement (x.Errorf(...), x.Fatal(...), x.FailNow()). Only statements with
// an identifier receiver count, and Error/Fatal only with arguments, so err.Error() does not.
func failsTest(body []ast.Stmt) bool {
	found := false
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			if found {
				return false
			}
			if _, ok := n.(*ast.FuncLit); ok {
				return false // a function the clause only defines fails nothing here
			}
			es, ok := n.(*ast.ExprStmt)
			if !ok {
				return true
			}
			call, ok := es.X.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if _, ok := sel.X.(*ast.Ident); !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Error", "Errorf", "Fatal", "Fatalf":
				found = len(call.Args) > 0
			case "Fail", "FailNow":
				found = len(call.Args) == 0
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// text is n as written, on one line, shortened to 60 characters.
func (p *parsed) text(n ast.Node) string {
	start, end := p.fset.Position(n.Pos()).Offset, p.fset.Position(n.End()).Offset
	t := strings.Join(strings.Fields(string(p.src[start:end])), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:57]) + "..."
	}
	return t
}

// ClauseLines returns the lines of the clauses, default included, of every select that a
// recording at file:line can be (any number of cases): the lines whose order a preference
// for that select's case numbers depends on. nil when the source cannot be read.
func ClauseLines(file string, line int) []int {
	p, err := parse(file)
	if err != nil {
		return nil
	}
	var lines []int
	for _, s := range p.selects {
		if !s.at(line, -1) {
			continue
		}
		for _, c := range s.Cases {
			lines = append(lines, c.Line)
		}
		if s.Default != 0 {
			lines = append(lines, s.Default)
		}
	}
	return lines
}
