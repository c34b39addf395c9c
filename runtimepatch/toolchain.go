package runtimepatch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Toolchain is the Go toolchain the go command uses for a module: the one
// `go env` reports in the module's directory, which honours GOTOOLCHAIN and
// go.mod's go and toolchain lines (downloading the toolchain if needed).
type Toolchain struct {
	GOROOT     string // as `go env` reports it; under GOMODCACHE for a downloaded toolchain
	GOVERSION  string // e.g. "go1.27.4"
	GOOS       string
	GOARCH     string
	GOMODCACHE string
}

// FindToolchain asks the go command on PATH which toolchain it would use in
// dir (empty: the current directory).
func FindToolchain(ctx context.Context, dir string) (Toolchain, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "-json", "GOROOT", "GOVERSION", "GOOS", "GOARCH", "GOMODCACHE")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		where := dir
		if where == "" {
			where = "the current directory"
		}
		return Toolchain{}, fmt.Errorf("runtimepatch: `go env` in %s failed (is Go installed and on PATH? does go.mod ask for a Go release that GOTOOLCHAIN forbids?): %v: %s",
			where, err, strings.TrimSpace(stderr.String()))
	}
	var tc Toolchain
	if err := json.Unmarshal(out, &tc); err != nil || tc.GOROOT == "" || tc.GOVERSION == "" {
		return Toolchain{}, fmt.Errorf("runtimepatch: unexpected `go env` output %q", out)
	}
	return tc, nil
}

// underModCache reports whether the toolchain lives in the module cache, where
// the go command refuses overlays (a toolchain it downloaded itself).
func (tc Toolchain) underModCache() bool {
	if tc.GOMODCACHE == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(tc.GOMODCACHE), filepath.Clean(tc.GOROOT))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// linkedGOROOT returns a GOROOT outside the module cache for a toolchain that
// lives in it: a directory under root whose entries are symbolic links to
// the toolchain's top-level entries. The go command, run as its bin/go with
// GOROOT set to it, builds from the same files, and accepts an overlay of
// them. Made once per toolchain, atomically.
func linkedGOROOT(root string, tc Toolchain) (string, error) {
	sum := sha256.Sum256([]byte(tc.GOROOT))
	dir := filepath.Join(root, fmt.Sprintf("%s.%s-%s-%x", tc.GOVERSION, tc.GOOS, tc.GOARCH, sum[:4]))
	if linksTo(dir, tc.GOROOT) {
		return dir, nil
	}
	entries, err := os.ReadDir(tc.GOROOT)
	if err != nil {
		return "", fmt.Errorf("runtimepatch: reading the toolchain %s: %w", tc.GOROOT, err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("runtimepatch: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return "", fmt.Errorf("runtimepatch: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(tc.GOROOT, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
			return "", fmt.Errorf("runtimepatch: linking the toolchain outside the module cache: %w", err)
		}
	}
	if _, err := os.Lstat(dir); err == nil {
		// Stale or damaged: replace it.
		os.RemoveAll(dir)
	}
	if err := os.Rename(tmp, dir); err != nil && !linksTo(dir, tc.GOROOT) {
		return "", fmt.Errorf("runtimepatch: linking the toolchain outside the module cache: %w", err)
	}
	return dir, nil
}

// linksTo reports whether dir is a complete linked GOROOT of goroot.
func linksTo(dir, goroot string) bool {
	for _, name := range []string{"src", "bin", "pkg", "VERSION"} {
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil || target != filepath.Join(goroot, name) {
			return false
		}
	}
	return true
}
