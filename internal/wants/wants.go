// Package wants reads `// want "KIND"` and `// related "KIND"` annotations from Go test
// programs and matches findings against them, with the rules of the acceptance corpus
// (../shared/corpus/README.md), after go/analysis's analysistest convention:
//
//   - each want "KIND" on a line is an expectation: some finding of KIND must have its
//     primary position on that line;
//   - a finding of KIND whose primary position is in an annotated file but on neither a
//     want "KIND" nor a related "KIND" line is unexpected;
//   - findings whose primary position is in no annotated directory are out of scope.
//
// A directory without any want line expects no finding at all.
package wants

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Expectation is one (file, line, kind) triple from a want annotation.
type Expectation struct {
	File string // absolute path
	Line int
	Kind string
}

func (e Expectation) String() string {
	return fmt.Sprintf("%s:%d: %s", filepath.Base(e.File), e.Line, e.Kind)
}

// Annotations are the want and related lines of a set of files.
type Annotations struct {
	Wants   []Expectation
	Related []Expectation
	// Files are the absolute paths of every scanned Go file, annotated or not.
	Files map[string]bool
}

var annotation = regexp.MustCompile(`//\s*(want|related)((?:\s+"[^"]+")+)\s*$`)
var quoted = regexp.MustCompile(`"([^"]+)"`)

// ParseDir scans the _test.go and .go files of dir (not recursively).
func ParseDir(dir string) (*Annotations, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(abs, "*.go"))
	if err != nil {
		return nil, err
	}
	a := &Annotations{Files: map[string]bool{}}
	for _, f := range files {
		if err := a.parseFile(f); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *Annotations) parseFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	a.Files[path] = true
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := annotation.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
			e := Expectation{File: path, Line: line, Kind: q[1]}
			if m[1] == "want" {
				a.Wants = append(a.Wants, e)
			} else {
				a.Related = append(a.Related, e)
			}
		}
	}
	return sc.Err()
}

// Report is a finding reduced to what matching needs.
type Report struct {
	Kind string
	File string // absolute path of the primary position
	Line int
}

// Result of matching reports against annotations.
type Result struct {
	Missing    []Expectation // wants no report met
	Unexpected []Report      // reports on neither a want nor a related line of their kind
}

// OK reports whether every want was met and nothing unexpected was reported.
func (r *Result) OK() bool { return len(r.Missing) == 0 && len(r.Unexpected) == 0 }

func (r *Result) String() string {
	var b strings.Builder
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "missing: %s\n", m)
	}
	for _, u := range r.Unexpected {
		fmt.Fprintf(&b, "unexpected: %s:%d: %s\n", filepath.Base(u.File), u.Line, u.Kind)
	}
	return b.String()
}

// Match applies the corpus matching rules.
func (a *Annotations) Match(reports []Report) *Result {
	type key struct {
		file string
		line int
		kind string
	}
	met := map[key]bool{}
	allowed := map[key]bool{}
	for _, e := range a.Related {
		allowed[key{e.File, e.Line, e.Kind}] = true
	}
	for _, e := range a.Wants {
		allowed[key{e.File, e.Line, e.Kind}] = true
	}
	res := &Result{}
	for _, r := range reports {
		k := key{r.File, r.Line, r.Kind}
		met[k] = true
		if a.Files[r.File] && !allowed[k] {
			res.Unexpected = append(res.Unexpected, r)
		}
	}
	for _, e := range a.Wants {
		if !met[key{e.File, e.Line, e.Kind}] {
			res.Missing = append(res.Missing, e)
		}
	}
	sort.Slice(res.Unexpected, func(i, j int) bool {
		x, y := res.Unexpected[i], res.Unexpected[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Kind < y.Kind
	})
	return res
}
