package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// A testPackage is a package matched by the campaign's patterns that has test files.
type testPackage struct {
	ImportPath string
	Dir        string // the package's directory: tests run there, like go test does
	Module     string // root of the module holding the package: the recorder's notion of user code
}

// listPackages resolves patterns in dir with go list and returns the packages that have
// tests. Packages with errors are kept: building them reports the compiler's output.
func listPackages(ctx context.Context, dir string, patterns []string) ([]testPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,Module,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go list %s in %s: %v\n%s", strings.Join(patterns, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []testPackage
	dec := json.NewDecoder(&stdout)
	for {
		var p struct {
			ImportPath   string
			Dir          string
			Module       *struct{ Dir string }
			TestGoFiles  []string
			XTestGoFiles []string
			Error        *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: reading its output: %v", err)
		}
		if p.Dir == "" && p.Error != nil {
			// A pattern naming nothing (no such directory): nothing to build, say why.
			return nil, fmt.Errorf("go list: %s", p.Error.Err)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		tp := testPackage{ImportPath: p.ImportPath, Dir: p.Dir, Module: p.Dir}
		if p.Module != nil && p.Module.Dir != "" {
			tp.Module = p.Module.Dir
		}
		pkgs = append(pkgs, tp)
	}
	return pkgs, nil
}
