package runtimepatch

import (
	"bytes"
	"regexp"
	"strings"
)

// renameDecl is the Decl of a rename site: instead of one line, it renames a
// set of symbols wherever the file names them (assembly TEXT and JMP lines,
// linkname directives), since those symbols are spelled on many lines that
// differ per architecture and release. Old and New are templates in which
// renameName stands for each symbol of renamedSymbols; a name matches only
// as a whole word. Every line stays one line.
const renameDecl = "(renamed symbols)"

const renameName = "NAME"

// renamedSymbols are the symbols rename sites may rename: the functions of
// sync/atomic (sites_atomicfn.go).
var renamedSymbols = atomicFnNames()

// renameSymbols applies the rename site s to lines, skipping the lines other
// sites replaced; it fails unless it renames at least one symbol.
func renameSymbols(goVersion string, lines [][]byte, done map[int]site, s site) error {
	before, after, ok := strings.Cut(s.Old, renameName)
	newBefore, newAfter, newOK := strings.Cut(s.New, renameName)
	if !ok || !newOK {
		return &SiteError{GoVersion: goVersion, File: s.File, Decl: s.Decl, Line: s.Old, Problem: "is not a rename template (no " + renameName + ")"}
	}
	re := regexp.MustCompile(regexp.QuoteMeta(before) + `(` + strings.Join(renamedSymbols, "|") + `)\b` + regexp.QuoteMeta(after))
	n := 0
	for i, l := range lines {
		if _, ok := done[i]; ok || !re.Match(l) {
			continue
		}
		lines[i] = re.ReplaceAllFunc(l, func(m []byte) []byte {
			n++
			name := re.FindSubmatch(m)[1]
			return bytes.Join([][]byte{[]byte(newBefore), name, []byte(newAfter)}, nil)
		})
	}
	if n == 0 {
		return &SiteError{GoVersion: goVersion, File: s.File, Decl: s.Decl, Line: s.Old, Problem: "not found: no symbol to rename"}
	}
	return nil
}
