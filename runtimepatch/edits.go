package runtimepatch

import (
	"bytes"
	"fmt"
	"sort"
)

// lineEdit replaces one line of a GOROOT source file.
type lineEdit struct {
	File string // path under GOROOT/src, slash-separated
	Line int    // 1-based line number in the stock file
	Old  string // the exact original line, without its newline
	New  string // the replacement, a single line
}

// DriftError reports a patch site whose line is not what the edit table
// expects: the toolchain's sources differ from the ones the table was made for.
type DriftError struct {
	File      string
	Line      int
	Want, Got string
}

func (e *DriftError) Error() string {
	return fmt.Sprintf("runtimepatch: %s:%d is %q, expected %q: this Go toolchain's sources differ from the ones goweave was built for; use a supported Go release",
		e.File, e.Line, e.Got, e.Want)
}

// applyEdits returns the patched copy of src for the edits of one file. It
// verifies every original line and keeps the line count unchanged.
func applyEdits(file string, src []byte, edits []lineEdit) ([]byte, error) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	sorted := append([]lineEdit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Line < sorted[j].Line })
	for i, e := range sorted {
		if e.File != file {
			return nil, fmt.Errorf("runtimepatch: edit for %s applied to %s", e.File, file)
		}
		if i > 0 && sorted[i-1].Line == e.Line {
			return nil, fmt.Errorf("runtimepatch: two edits for %s:%d", file, e.Line)
		}
		if bytes.ContainsAny([]byte(e.New), "\r\n") {
			return nil, fmt.Errorf("runtimepatch: edit for %s:%d spans several lines", file, e.Line)
		}
		if e.Line < 1 || e.Line > len(lines) {
			return nil, &DriftError{File: file, Line: e.Line, Want: e.Old, Got: "<end of file>"}
		}
		got := lines[e.Line-1]
		eol := []byte{}
		if bytes.HasSuffix(got, []byte("\n")) {
			got, eol = got[:len(got)-1], []byte("\n")
		}
		if string(got) != e.Old {
			return nil, &DriftError{File: file, Line: e.Line, Want: e.Old, Got: string(got)}
		}
		lines[e.Line-1] = append([]byte(e.New), eol...)
	}
	return bytes.Join(lines, nil), nil
}

// editsByFile groups an edit table by file, in a stable order.
func editsByFile(table []lineEdit) (files []string, byFile map[string][]lineEdit) {
	byFile = make(map[string][]lineEdit)
	for _, e := range table {
		if _, ok := byFile[e.File]; !ok {
			files = append(files, e.File)
		}
		byFile[e.File] = append(byFile[e.File], e)
	}
	sort.Strings(files)
	return files, byFile
}
