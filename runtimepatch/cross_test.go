package runtimepatch

import (
	"context"
	"debug/macho"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// EnvCross lists the targets TestCrossBuild builds for, e.g. "darwin/arm64 darwin/amd64"
// (.ci/cross.sh); envCrossCorpus names a module whose test binaries it builds too (the
// acceptance corpus).
const (
	envCross       = "GOWEAVE_CROSS"
	envCrossCorpus = "GOWEAVE_CROSS_CORPUS"
)

// crossArch is the Mach-O CPU of each macOS architecture.
var crossArch = map[string]macho.Cpu{"arm64": macho.CpuArm64, "amd64": macho.CpuAmd64}

// TestCrossBuild builds the patched runtime into the test binaries of testdata and of the
// corpus for each target of GOWEAVE_CROSS, with and without -race, as goweave builds them
// on that system (Prepare with the target's GOOS and GOARCH, go test -c -overlay): the
// overlay compiles and links there. Each binary must be a Mach-O executable of the target's
// CPU that holds the goweave runtime (its flush and its libc trampoline) and, with -race,
// the race runtime. None of them runs here.
func TestCrossBuild(t *testing.T) {
	targets := strings.Fields(os.Getenv(envCross))
	if len(targets) == 0 {
		t.Skip(envCross + " is not set (.ci/cross.sh sets it)")
	}
	modules := []string{testdataDir(t)}
	if c := os.Getenv(envCrossCorpus); c != "" {
		abs, err := filepath.Abs(c)
		if err != nil {
			t.Fatal(err)
		}
		modules = append(modules, abs)
	}
	for _, target := range targets {
		goos, goarch, _ := strings.Cut(target, "/")
		cpu, ok := crossArch[goarch]
		if goos != "darwin" || !ok {
			t.Fatalf("%s: TestCrossBuild checks darwin/arm64 and darwin/amd64 binaries only", target)
		}
		t.Run(goos+"-"+goarch, func(t *testing.T) {
			// -race needs no cgo on macOS (the go command allows it): the C compiler of
			// the target, which this machine lacks, is not needed.
			t.Setenv("GOOS", goos)
			t.Setenv("GOARCH", goarch)
			t.Setenv("CGO_ENABLED", "0")
			t.Setenv("GOFLAGS", "")
			t.Setenv("GOWORK", "off")
			for _, mod := range modules {
				ov, err := Prepare(context.Background(), mod)
				if err != nil {
					t.Fatal(err)
				}
				pkgs := testPackages(t, ov, mod)
				for _, race := range []bool{false, true} {
					out := t.TempDir() + string(filepath.Separator)
					args := []string{"test", "-c", "-o", out, "-overlay=" + ov.Path}
					if race {
						args = append(args, "-race")
					}
					cmd := ov.Command(context.Background(), append(args, "./...")...)
					cmd.Dir = mod
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("%s: go %s: %v\n%s", mod, strings.Join(args, " "), err, b)
					}
					bins, _ := filepath.Glob(out + "*.test")
					if len(bins) != pkgs {
						t.Errorf("%s (race %v): %d test binaries, want one for each of the %d packages with tests", mod, race, len(bins), pkgs)
					}
					for _, bin := range bins {
						checkMachO(t, bin, cpu, race)
					}
				}
			}
		})
	}
}

// testPackages counts the packages of the module in dir that have tests.
func testPackages(t *testing.T, ov *Overlay, dir string) int {
	t.Helper()
	cmd := ov.Command(context.Background(), "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", dir, err)
	}
	return len(strings.Fields(string(out)))
}

// checkMachO fails unless bin is a Mach-O executable for cpu that holds the goweave runtime
// (and the race runtime when race).
func checkMachO(t *testing.T, bin string, cpu macho.Cpu, race bool) {
	t.Helper()
	f, err := macho.Open(bin)
	if err != nil {
		t.Errorf("%s: not a Mach-O file: %v", bin, err)
		return
	}
	defer f.Close()
	if f.Cpu != cpu || f.Type != macho.TypeExec {
		t.Errorf("%s: Mach-O %v %v, want an executable for %v", bin, f.Type, f.Cpu, cpu)
	}
	if f.Symtab == nil {
		t.Errorf("%s: no symbol table", bin)
		return
	}
	var names []string
	for _, s := range f.Symtab.Syms {
		names = append(names, s.Name)
	}
	want := []string{"runtime.goweaveFlush", "runtime.goweave_getpid_trampoline.abi0", "runtime.goweaveTimeLimitThread"}
	if race {
		want = append(want, "__tsan_go_start")
	}
	for _, w := range want {
		if !slices.ContainsFunc(names, func(n string) bool { return n == w || n == "_"+w }) {
			t.Errorf("%s: no symbol %s", filepath.Base(bin), w)
		}
	}
}
