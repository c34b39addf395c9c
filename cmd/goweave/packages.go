package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// testArgs resolves the package arguments and -run of fuzz and record (see packageArgs)
// and checks that the current directory is in a module; it prints what is wrong as an
// error of goweave cmd, and ok is false then.
func testArgs(cmd string, args []string, run string) (patterns []string, runPattern string, ok bool) {
	patterns, runPattern, err := packageArgs(args, run)
	if err == nil {
		err = checkModule(".")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goweave %s: %v\n", cmd, err)
		return nil, "", false
	}
	return patterns, runPattern, true
}

// packageArgs turns the package arguments of fuzz and record into what go list resolves,
// accepting what go test accepts. Import paths, relative directories and patterns pass
// through. Go files (go test x_test.go) name the package of their directory, and the
// tests they declare: the returned run regexp selects those (the ones run also matches,
// when it is set). go test would compile only the named files; goweave builds the whole
// package, which the files' tests need anyway unless they stand alone.
func packageArgs(args []string, run string) (patterns []string, runOut string, err error) {
	var files []string
	for _, a := range args {
		if strings.HasSuffix(a, ".go") {
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		return args, run, nil
	}
	if len(files) != len(args) {
		return nil, "", fmt.Errorf("cannot mix Go files and packages in the arguments (%s): name either files of one directory or packages", strings.Join(args, " "))
	}
	dir := filepath.Dir(files[0])
	var tests []string
	for _, f := range files {
		if filepath.Dir(f) != dir {
			return nil, "", fmt.Errorf("named files must all be in one directory; have %s and %s", dir, filepath.Dir(f))
		}
		names, err := testsIn(f)
		if err != nil {
			return nil, "", err
		}
		tests = append(tests, names...)
	}
	if run != "" {
		re, err := regexp.Compile(run)
		if err != nil {
			return nil, "", fmt.Errorf("-run %q: %v", run, err)
		}
		kept := tests[:0]
		for _, name := range tests {
			if re.MatchString(name) {
				kept = append(kept, name)
			}
		}
		tests = kept
	}
	if len(tests) == 0 {
		return nil, "", fmt.Errorf("no tests to fuzz in %s (go test runs the TestXxx(t *testing.T) functions of the named files)", strings.Join(files, " "))
	}
	for i, name := range tests {
		tests[i] = regexp.QuoteMeta(name)
	}
	pattern := dir
	if !filepath.IsAbs(dir) && dir != "." && !strings.HasPrefix(dir, "..") {
		pattern = "./" + dir
	}
	return []string{pattern}, "^(" + strings.Join(tests, "|") + ")$", nil
}

// testsIn lists the test functions of a Go file: func TestXxx(t *testing.T).
func testsIn(file string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !isTestName(fn.Name.Name) || fn.Type.Params.NumFields() != 1 {
			continue
		}
		names = append(names, fn.Name.Name)
	}
	return names, nil
}

// isTestName: Test, or Test followed by a character that is not a lower-case letter, as
// go test has it.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// errNoModule is what fuzz and record say outside a Go module, instead of go list's error.
var errNoModule = errors.New("no go.mod here or above: run goweave inside a Go module (cd into it; go mod init creates one)")

// checkModule reports errNoModule when dir is in neither a module nor a workspace.
func checkModule(dir string) error {
	cmd := exec.Command("go", "env", "GOMOD", "GOWORK")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil // go list will say what is wrong
	}
	lines := strings.Split(string(bytes.TrimSpace(out)), "\n")
	gomod, gowork := lines[0], ""
	if len(lines) > 1 {
		gowork = lines[1]
	}
	if (gomod == "" || gomod == os.DevNull) && (gowork == "" || gowork == "off") {
		return errNoModule
	}
	return nil
}
