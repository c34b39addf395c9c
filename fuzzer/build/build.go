package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/goweave/goweave/runtimepatch"
)

// A TestBinary is the compiled test binary of one package, built once and run many times.
type TestBinary struct {
	Package string   // import path
	Dir     string   // package directory, the working directory of its runs
	Module  string   // module root, passed to the recorder as the extent of user code
	Path    string   // the executable
	Tests   []string // top-level tests selected by Options.Run, in source order
}

// Options says what to build and where.
type Options struct {
	Dir      string   // where the patterns are resolved; empty = current directory
	Packages []string // default ["./..."]
	Run      string   // regexp selecting top-level tests, examples and fuzz targets by name
	Race     bool
	Vet      string                // go test's -vet; empty: go test's default
	Overlay  *runtimepatch.Overlay // the goweave runtime, built with its toolchain; nil = stock runtime, the go on PATH
	BinDir   string                // where the binaries are written (the caller owns and removes it)
	Parallel int                   // concurrent go commands; <= 0 means 1
}

// Build resolves the package patterns, builds one test binary per package that has tests
// and lists its selected tests. Packages without a selected test are left out. A package
// that fails to compile contributes a *Error to the returned error (joined with the
// others'); the binaries that did build are returned alongside.
func Build(ctx context.Context, opts Options) ([]*TestBinary, error) {
	runRE, err := compileRun(opts.Run)
	if err != nil {
		return nil, err
	}
	patterns := opts.Packages
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	pkgs, err := listPackages(ctx, opts.Dir, patterns)
	if err != nil {
		return nil, err
	}
	binDir := opts.BinDir
	if binDir == "" {
		return nil, errors.New("build.Build: Options.BinDir is empty")
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	parallel := max(opts.Parallel, 1)
	sem := make(chan struct{}, parallel)
	bins := make([]*TestBinary, len(pkgs))
	errs := make([]error, len(pkgs))
	var wg sync.WaitGroup
	for i, p := range pkgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			bins[i], errs[i] = buildOne(ctx, p, opts, binDir, runRE)
		})
	}
	wg.Wait()
	var out []*TestBinary
	for _, b := range bins {
		if b != nil && len(b.Tests) > 0 {
			out = append(out, b)
		}
	}
	return out, errors.Join(errs...)
}

func compileRun(run string) (*regexp.Regexp, error) {
	if run == "" {
		return nil, nil
	}
	re, err := regexp.Compile(run)
	if err != nil {
		return nil, fmt.Errorf("invalid -run regexp: %v", err)
	}
	return re, nil
}

func buildOne(ctx context.Context, p testPackage, opts Options, binDir string, runRE *regexp.Regexp) (*TestBinary, error) {
	// Base name for readability, hash for uniqueness (a/b_c and a_b/c must not collide).
	sum := sha256.Sum256([]byte(p.ImportPath))
	name := fmt.Sprintf("%s-%x", path.Base(p.ImportPath), sum[:4])
	if opts.Race {
		name += "-race"
	}
	bin := filepath.Join(binDir, name+".test")
	args := []string{"test", "-c", "-o", bin}
	if opts.Race {
		args = append(args, "-race")
	}
	if opts.Vet != "" {
		args = append(args, "-vet="+opts.Vet)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, p.ImportPath)...)
	if opts.Overlay != nil {
		cmd = opts.Overlay.Command(ctx, append(args, "-overlay="+opts.Overlay.Path, p.ImportPath)...)
	}
	InDir(cmd, p.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		code, exited := exitCode(err)
		if !exited {
			return nil, fmt.Errorf("running go test -c for %s: %v", p.ImportPath, err)
		}
		output := out.String()
		if opts.Overlay != nil {
			output += patchedOnly(ctx, p, opts, output)
		}
		return nil, &Error{Package: p.ImportPath, Output: output, ExitCode: code}
	}
	tests, err := listTests(ctx, bin, p.Dir, runRE)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// It compiled but cannot even list its tests (an init that panics, a TestMain that
		// exits early): as unusable as a compile error, and as local to the package.
		code, _ := exitCode(err)
		return nil, &Error{Package: p.ImportPath, Output: "the test binary failed to list its tests: " + err.Error() + "\n", ExitCode: code}
	}
	return &TestBinary{Package: p.ImportPath, Dir: p.Dir, Module: p.Module, Path: bin, Tests: tests}, nil
}

// listTests asks the binary for its tests, examples and fuzz targets (benchmarks are not
// run), keeping those matched by runRE.
func listTests(ctx context.Context, bin, dir string, runRE *regexp.Regexp) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.list", ".*")
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, strings.TrimSpace(stdout.String()+"\n"+stderr.String()))
	}
	var tests []string
	for _, line := range strings.Split(stdout.String(), "\n") {
		name := strings.TrimSpace(line)
		if name == "" || strings.HasPrefix(name, "Benchmark") {
			continue
		}
		if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Example") && !strings.HasPrefix(name, "Fuzz") {
			continue // "ok", or text an init function printed
		}
		if runRE != nil && !runRE.MatchString(name) {
			continue
		}
		tests = append(tests, name)
	}
	return tests, nil
}

// exitCode returns the exit status of the process err reports ended unsuccessfully, or -1
// and false when err is not about the process's exit (it could not be started, ...).
func exitCode(err error) (int, bool) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), true
	}
	return -1, false
}
