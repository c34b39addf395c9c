package runtimepatch

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"

	"github.com/goweave/goweave/internal/astname"
)

// site is one patch site: a line of a GOROOT source file found by its text
// inside a named declaration (never by its line number, which patch releases
// move), replaced by one line so the file keeps its line count and tracebacks
// keep true lines.
type site struct {
	File string // path under GOROOT/src, slash-separated
	// Decl names the declaration holding the line: a function "chansend", a
	// method "(*Mutex).Lock", a type "type hchan", "import", "package" (the
	// package clause) or "doc f" (the comment above function f, directives
	// included); renameDecl for a rename site (rename.go).
	Decl string
	// After, when set, is a line that occurs exactly once in Decl; Old is
	// then looked for in the lines from it to the next blank line. It tells
	// apart lines that occur several times in one function.
	After string
	Old   string // the exact original line, without its newline; must occur exactly once where looked for
	New   string // the replacement, a single line
}

// SiteError reports a patch site that cannot be found, or not unambiguously,
// in a toolchain's sources: goweave never builds a runtime with a site left
// unpatched.
type SiteError struct {
	GoVersion string // the toolchain's version, e.g. "go1.27.4"
	File      string // path under GOROOT/src
	Decl      string // the declaration searched
	Line      string // the anchor line looked for
	Problem   string // what went wrong, e.g. "not found", "found 2 times"
}

func (e *SiteError) Error() string {
	return fmt.Sprintf("runtimepatch: %s: patch site in %s, %s: line %q %s; this toolchain's sources differ from the ones goweave's patch was written for (supported: %s)",
		e.GoVersion, e.File, e.Decl, strings.TrimSpace(e.Line), e.Problem, SupportedVersions)
}

// patchFile returns the patched copy of src, the file file of Go goVersion,
// with every site of sites (all for this file) replaced. The copy has as many
// lines as src.
func patchFile(goVersion, file string, src []byte, sites []site) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = strings.TrimSuffix(string(l), "\n")
	}
	var decls map[string]lineRange // parsed when a site needs them (not for assembly)
	var renames []site
	done := map[int]site{} // 0-based line -> the site that replaced it
	for _, s := range sites {
		if s.File != file {
			return nil, fmt.Errorf("runtimepatch: site for %s applied to %s", s.File, file)
		}
		if s.Decl == renameDecl {
			renames = append(renames, s)
			continue
		}
		if decls == nil {
			var err error
			if decls, err = declRanges(file, src); err != nil {
				return nil, fmt.Errorf("runtimepatch: %s: parsing %s: %v", goVersion, file, err)
			}
		}
		if strings.ContainsAny(s.New, "\r\n") {
			return nil, fmt.Errorf("runtimepatch: site %s, %s: the replacement of %q spans several lines", file, s.Decl, s.Old)
		}
		fail := func(line, problem string) error {
			return &SiteError{GoVersion: goVersion, File: file, Decl: s.Decl, Line: line, Problem: problem}
		}
		r, ok := decls[s.Decl]
		if !ok {
			return nil, fail(s.Old, "not found: the file has no declaration "+s.Decl)
		}
		if r.count > 1 {
			return nil, fail(s.Old, fmt.Sprintf("not found: the file declares %s %d times", s.Decl, r.count))
		}
		from, to := r.first, r.last
		if s.After != "" {
			at := find(text, from, to, s.After)
			if len(at) != 1 {
				return nil, fail(s.After, foundProblem(len(at), s.Decl))
			}
			from, to = at[0], at[0]
			for to+1 <= r.last && text[to+1] != "" {
				to++
			}
		}
		at := find(text, from, to, s.Old)
		if len(at) != 1 {
			where := s.Decl
			if s.After != "" {
				where = fmt.Sprintf("the lines of %s from %q to the next blank line", s.Decl, strings.TrimSpace(s.After))
			}
			return nil, fail(s.Old, foundProblem(len(at), where))
		}
		if prev, ok := done[at[0]]; ok {
			return nil, fail(s.Old, fmt.Sprintf("is also the site of %q", prev.New))
		}
		done[at[0]] = s
		eol := ""
		if strings.HasSuffix(string(lines[at[0]]), "\n") {
			eol = "\n"
		}
		lines[at[0]] = []byte(s.New + eol)
	}
	for _, s := range renames {
		if err := renameSymbols(goVersion, lines, done, s); err != nil {
			return nil, err
		}
	}
	return bytes.Join(lines, nil), nil
}

func foundProblem(n int, where string) string {
	if n == 0 {
		return "not found in " + where
	}
	return fmt.Sprintf("found %d times in %s (must be once)", n, where)
}

// find returns the 0-based indexes of the lines in text[from:to+1] equal to want.
func find(text []string, from, to int, want string) []int {
	var at []int
	for i := from; i <= to && i < len(text); i++ {
		if text[i] == want {
			at = append(at, i)
		}
	}
	return at
}

// lineRange is a declaration's 0-based first and last line; count is how
// many declarations have its name (only 1 is usable).
type lineRange struct{ first, last, count int }

// declRanges maps the names a site's Decl may use to the declarations of a
// Go source file.
func declRanges(file string, src []byte) (map[string]lineRange, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	out := map[string]lineRange{}
	add := func(name string, from, to token.Pos) {
		r := out[name]
		r.first, r.last = fset.Position(from).Line-1, fset.Position(to).Line-1
		r.count++
		out[name] = r
	}
	add("package", f.Package, f.Name.End())
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			add(siteFuncName(d), d.Pos(), d.End())
			if d.Doc != nil {
				add("doc "+siteFuncName(d), d.Doc.Pos(), d.Doc.End())
			}
		case *ast.GenDecl:
			switch d.Tok {
			case token.IMPORT:
				add("import", d.Pos(), d.End())
			case token.TYPE:
				for _, spec := range d.Specs {
					ts := spec.(*ast.TypeSpec)
					from := ts.Pos()
					if len(d.Specs) == 1 {
						from = d.Pos()
					}
					add("type "+ts.Name.Name, from, ts.End())
				}
			}
		}
	}
	return out, nil
}

// sitesByFile groups a site table by file, in a stable order.
func sitesByFile(table []site) (files []string, byFile map[string][]site) {
	byFile = make(map[string][]site)
	for _, s := range table {
		if _, ok := byFile[s.File]; !ok {
			files = append(files, s.File)
		}
		byFile[s.File] = append(byFile[s.File], s)
	}
	sort.Strings(files)
	return files, byFile
}

// siteFuncName is a site table's name of a function: "F", or "(T).M" / "(*T).M" for a method
// ("(?).M" when the receiver type cannot be named).
func siteFuncName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	recv, pointer := astname.Receiver(d)
	if recv == "" {
		recv = "?"
	}
	if pointer {
		recv = "*" + recv
	}
	return "(" + recv + ")." + d.Name.Name
}
