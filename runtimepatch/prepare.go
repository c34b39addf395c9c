package runtimepatch

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Environment variables the patched runtime reads at start-up.
const (
	// EnvTrace is the path of the trace file to write; recording is off when
	// it is unset. The patched runtime removes it from the environment it
	// passes on, so a process the test starts cannot overwrite the trace.
	EnvTrace = "GOWEAVE_TRACE"
	// EnvModule is the module root directory: only operations attributed to
	// files under it are recorded. When unset, everything outside GOROOT is.
	EnvModule = "GOWEAVE_MODULE"
	// EnvEvents optionally sets the capacity of the event buffer, in events
	// (default 4194304, at most 67108864). Events beyond it are counted in
	// META "dropped" and lost.
	EnvEvents = "GOWEAVE_EVENTS"
	// EnvSchedule is the path of a schedule file (fuzzer/schedule/FORMAT.md)
	// the run follows: an order to admit operations in, delays, select
	// preferences (SCHEDULE.md). It takes effect only when recording. A file
	// that does not parse ends the process at start-up with exit status 2
	// and "goweave: schedule <path>: line N: ..." on stderr.
	EnvSchedule = "GOWEAVE_SCHEDULE"
	// EnvTimeLimit arms the time limit's leak check of a recording process:
	// its value is the number of the signal (TimeLimitSignal) the supervisor
	// sends at the time limit, before SIGQUIT. The process then runs the GC's
	// goroutine leak detection (Go 1.26 and later), so that the trace's
	// GOROUTINES say which blocked goroutines nothing can ever wake, and ends
	// itself with SIGQUIT (trace META timelimit=1). A process that does not
	// answer within a grace period gets SIGQUIT as before.
	EnvTimeLimit = "GOWEAVE_TIMELIMIT"
	// EnvStuck, set to 0, disarms the stuck check EnvTimeLimit arms with the
	// time limit: a thread that ends the run as soon as its state shows it
	// deadlocked (every goroutine blocked, a lock cycle, the test goroutine
	// proven leaked), with META stuck=global|lockcycle|leaked and a "fatal
	// error: goweave: deadlock: ..." line (docs/stuck-detection.md).
	EnvStuck = "GOWEAVE_STUCK"
)

// Overlay is a generated overlay for one toolchain, and how to run that
// toolchain's go command with it.
type Overlay struct {
	Path      string // the overlay JSON file, for `go test -c -overlay=Path`
	GOROOT    string // the GOROOT the overlay patches (outside GOMODCACHE)
	GoVersion string // e.g. "go1.26.8"
	Go        string // the go command of that toolchain
	// Env are the environment entries every go command building with the
	// overlay needs: GOROOT, GOTOOLCHAIN=local (no switch to another
	// toolchain) and PATH with GOROOT/bin first.
	Env []string
}

// Command returns the go command of the overlay's toolchain with args, its
// environment the process's plus Env. The caller adds -overlay=Path.
func (o *Overlay) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, o.Go, args...)
	cmd.Env = append(os.Environ(), o.Env...)
	return cmd
}

//go:embed all:_patch
var patchFiles embed.FS

// Prepare returns the overlay for the toolchain the go command uses in dir
// (the module directory; empty: the current directory), generating it into
// os.UserCacheDir()/goweave/overlay/<hash> if absent or damaged. A toolchain
// the go command downloaded into GOMODCACHE is used through a linked GOROOT
// under os.UserCacheDir()/goweave/toolchain (the go command refuses overlays
// of files in the module cache). An unsupported toolchain is an error saying
// which versions are supported and what to do.
func Prepare(ctx context.Context, dir string) (*Overlay, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("runtimepatch: no cache directory for the overlay: %w", err)
	}
	tc, err := FindToolchain(ctx, dir)
	if err != nil {
		return nil, err
	}
	return prepareFor(filepath.Join(cache, "goweave"), tc)
}

// prepareFor returns the overlay of tc, with the linked toolchains and the
// overlays under cache.
func prepareFor(cache string, tc Toolchain) (*Overlay, error) {
	if err := tc.Supported(); err != nil {
		return nil, err
	}
	if tc.underModCache() {
		root, err := linkedGOROOT(filepath.Join(cache, "toolchain"), tc)
		if err != nil {
			return nil, err
		}
		tc.GOROOT = root
	}
	return prepareIn(filepath.Join(cache, "overlay"), tc)
}

// prepareIn returns the overlay for tc under root, generating it if absent
// or damaged (a file missing or changed since generation: manifest.go).
// Generation writes a temporary directory beside the final one and renames
// it into place, so a concurrent process sees either nothing or a complete
// overlay.
func prepareIn(root string, tc Toolchain) (*Overlay, error) {
	rel, err := tc.release()
	if err != nil {
		return nil, err
	}
	sites := rel.Sites
	key, err := overlayKey(tc, sites)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, key)
	ov := &Overlay{
		Path: filepath.Join(dir, "overlay.json"), GOROOT: tc.GOROOT, GoVersion: tc.GOVERSION,
		Go: filepath.Join(tc.GOROOT, "bin", "go"),
		Env: []string{"GOROOT=" + tc.GOROOT, "GOTOOLCHAIN=local",
			"PATH=" + filepath.Join(tc.GOROOT, "bin") + string(os.PathListSeparator) + os.Getenv("PATH")},
	}
	damaged := verifyOverlay(dir)
	if damaged == nil {
		return ov, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("runtimepatch: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".tmp-"+key+"-")
	if err != nil {
		return nil, fmt.Errorf("runtimepatch: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := writeOverlay(tmp, dir, tc, sites); err != nil {
		return nil, err
	}
	if err := writeManifest(tmp); err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil && verifyOverlay(dir) != nil {
		// Damaged (or from a goweave that wrote no manifest): move it
		// aside and put the new one in its place.
		old, err := os.MkdirTemp(root, ".damaged-"+key+"-")
		if err != nil {
			return nil, fmt.Errorf("runtimepatch: %w", err)
		}
		defer os.RemoveAll(old)
		if err := os.Rename(dir, filepath.Join(old, key)); err != nil && verifyOverlay(dir) != nil {
			return nil, fmt.Errorf("runtimepatch: replacing the damaged overlay %s (%v): %w", dir, damaged, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process finished first: use its overlay.
		if verifyOverlay(dir) == nil {
			return ov, nil
		}
		return nil, fmt.Errorf("runtimepatch: installing the overlay: %w", err)
	}
	return ov, nil
}

// overlayKey hashes everything the overlay depends on.
func overlayKey(tc Toolchain, sites []site) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "goweave overlay v2\x00%s\x00%s\x00", tc.GOROOT, tc.GOVERSION)
	for _, s := range sites {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", s.File, s.Decl, s.After, s.Old, s.New)
	}
	names, err := addedFiles()
	if err != nil {
		return "", err
	}
	for _, name := range names {
		data, err := patchFiles.ReadFile(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// addedFiles lists the embedded files to add to std packages, as
// "_patch/<pkg>/<name>.go" (or .s: an assembly trampoline).
func addedFiles() ([]string, error) {
	var names []string
	err := fs.WalkDir(patchFiles, "_patch", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".s")) { // .s: a package may then declare bodyless functions
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// writeOverlay writes the patched and added files into tmp, one directory per
// package (a directory holding two packages' files breaks the build), and the
// overlay JSON naming them at their final place under dir.
func writeOverlay(tmp, dir string, tc Toolchain, sites []site) error {
	goroot := tc.GOROOT
	replace := make(map[string]string)
	files, byFile := sitesByFile(sites)
	for _, file := range files {
		src, err := os.ReadFile(filepath.Join(goroot, "src", filepath.FromSlash(file)))
		if err != nil {
			return fmt.Errorf("runtimepatch: reading the toolchain's sources: %w", err)
		}
		patched, err := patchFile(tc.GOVERSION, file, src, byFile[file])
		if err != nil {
			return err
		}
		if err := writeInto(tmp, file, patched); err != nil {
			return err
		}
		replace[filepath.Join(goroot, "src", filepath.FromSlash(file))] = filepath.Join(dir, filepath.FromSlash(file))
	}
	names, err := addedFiles()
	if err != nil {
		return err
	}
	for _, name := range names {
		data, err := patchFiles.ReadFile(name)
		if err != nil {
			return err
		}
		file := strings.TrimPrefix(name, "_patch/")
		if _, err := os.Stat(filepath.Join(goroot, "src", filepath.FromSlash(path.Dir(file)))); err != nil {
			return fmt.Errorf("runtimepatch: toolchain has no package %s: %w", path.Dir(file), err)
		}
		if err := writeInto(tmp, file, data); err != nil {
			return err
		}
		replace[filepath.Join(goroot, "src", filepath.FromSlash(file))] = filepath.Join(dir, filepath.FromSlash(file))
	}
	js, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return err
	}
	return writeInto(tmp, "overlay.json", append(js, '\n'))
}

func writeInto(root, file string, data []byte) error {
	p := filepath.Join(root, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("runtimepatch: %w", err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("runtimepatch: %w", err)
	}
	return nil
}
