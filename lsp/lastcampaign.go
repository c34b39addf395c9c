package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/internal/atomicfile"
)

// The findings of the last campaign, shown at once when a test file is opened.
//
// A campaign's first diagnostic waits for the build of the test binary, seconds even when
// nothing changed (the engine's saved state is keyed on the binary's hash, so it can only
// be consulted after the build). When a campaign ends, the server saves its findings beside
// the campaign state with a key it can compute without building: a hash of the package's
// files, of the files of the module's packages it imports (transitively), of go.mod, go.sum
// and go.work, of the Go toolchain's version and environment, of the goweave executable and
// of the settings that change what is found (race, strategy). When a file of the package is
// opened and the key is unchanged, the saved findings are published before the campaign
// starts, marked "from the last campaign, not yet rerun" (message suffix, and
// data.lastCampaign); the campaign then runs as always and its findings replace them. A
// key that differs (an edit, another toolchain, another goweave) publishes nothing.
//
// The key misses what the engine's binary hash would catch beyond it: a dependency outside
// the module replaced in the module cache by hand, cgo's C toolchain, build tags in
// GOFLAGS set by a wrapper. Such findings are shown marked, and the campaign that follows
// replaces them.

// lastCampaignVersion is the format of the saved file.
const lastCampaignVersion = 1

// lastCampaignSuffix marks the message of a finding restored from the saved file.
const lastCampaignSuffix = " (from the last campaign, not yet rerun)"

// savedFindings is the file saved for a package.
type savedFindings struct {
	Version  int              `json:"version"`
	Dir      string           `json:"dir"`
	Key      string           `json:"key"`
	Findings []fuzzer.Finding `json:"findings"`
}

// lastCampaigns restores the saved findings of packages as their files are opened, once
// per package and session.
type lastCampaigns struct {
	dir string // where the files are saved; "" means DefaultOutDir(package)/lsp

	mu       sync.Mutex
	restores map[string]chan struct{} // package dir -> closed when its restore is over
	saveMu   sync.Mutex               // orders the read-merge-write of saves
}

// withLastCampaignDir saves and reads the last campaigns' findings in dir (tests).
func withLastCampaignDir(dir string) Option { return func(s *Server) { s.last.dir = dir } }

// path is the file of the package in pkgDir.
func (l *lastCampaigns) path(pkgDir string, cfg fuzzer.Config) (string, error) {
	base := l.dir
	if base == "" {
		out := cfg.OutDir
		if out == "" {
			var err error
			if out, err = fuzzer.DefaultOutDir(pkgDir); err != nil {
				return "", err
			}
		}
		base = filepath.Join(out, "lsp")
	}
	sum := sha256.Sum256([]byte(pkgDir))
	return filepath.Join(base, "last-"+hex.EncodeToString(sum[:8])+".json"), nil
}

// restoreLastCampaign publishes the saved findings of the package in dir if its key is unchanged, on
// its own goroutine; the package's next campaign waits for it (waitRestored), so that the
// saved findings never arrive after the campaign's.
func (s *Server) restoreLastCampaign(dir string) {
	l := &s.last
	l.mu.Lock()
	if _, done := l.restores[dir]; done {
		l.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	if l.restores == nil {
		l.restores = map[string]chan struct{}{}
	}
	l.restores[dir] = ch
	l.mu.Unlock()
	if !s.goBackground("restoring the last campaign of "+dir, func() {
		defer close(ch)
		if err := s.publishLastCampaign(dir); err != nil {
			s.log.Info("the last campaign's findings are not shown", "dir", dir, "reason", err)
		}
	}) {
		close(ch)
	}
}

// waitRestored waits until the restore of dir, if one was started, is over.
func (s *Server) waitRestored(ctx context.Context, dir string) {
	s.last.mu.Lock()
	ch := s.last.restores[dir]
	s.last.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

func (s *Server) publishLastCampaign(dir string) error {
	if !hasTestFiles(dir) {
		return nil
	}
	if _, err := s.folderOf(dir); err != nil {
		return err // `go env` runs in dir, and may switch toolchains: workspace only
	}
	cfg := s.currentSettings().fuzzConfig(dir, "")
	path, err := s.last.path(dir, cfg)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	var saved savedFindings
	if err := json.Unmarshal(data, &saved); err != nil || saved.Version != lastCampaignVersion || saved.Dir != dir {
		return fmt.Errorf("%s: not a saved campaign of this package (%v)", path, err)
	}
	key, err := sourceKey(s.ctx, dir, cfg)
	if err != nil {
		return err
	}
	if key != saved.Key {
		return fmt.Errorf("the package, its toolchain, goweave or the settings changed since the last campaign")
	}
	placed := make([]*storedFinding, 0, len(saved.Findings))
	for _, f := range saved.Findings {
		sf := s.place(f)
		sf.fromLast = true
		placed = append(placed, sf)
	}
	s.publishAll(s.findings.restore(dir, cfg, placed))
	return nil
}

// saveLastCampaign saves the findings of a campaign over dir. key is the source key
// taken when the campaign started; nothing is saved when the sources changed meanwhile.
// The findings saved under the same key stay unless found again: they were seen in the
// same code, by a campaign of another test or one that was luckier.
func (s *Server) saveLastCampaign(dir, key string, cfg fuzzer.Config, findings []fuzzer.Finding) error {
	// Not cancelled by shutdown, which waits for the save: an editor closed during a
	// campaign still finds what it found next time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), time.Minute)
	defer cancel()
	now, err := sourceKey(ctx, dir, cfg)
	if err != nil {
		return err
	}
	if now != key {
		return fmt.Errorf("the package changed during the campaign")
	}
	path, err := s.last.path(dir, cfg)
	if err != nil {
		return err
	}
	s.last.saveMu.Lock() // campaigns of one package may end together (stopped and replaced)
	defer s.last.saveMu.Unlock()
	saved := savedFindings{Version: lastCampaignVersion, Dir: dir, Key: key, Findings: slices.Clone(findings)}
	var old savedFindings
	if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &old) == nil && old.Version == lastCampaignVersion && old.Key == key {
		found := map[string]bool{}
		for _, f := range findings {
			found[f.Fingerprint] = true
		}
		for _, f := range old.Findings {
			if !found[f.Fingerprint] {
				saved.Findings = append(saved.Findings, f)
			}
		}
	}
	if saved.Findings == nil {
		saved.Findings = []fuzzer.Finding{}
	}
	data, err := json.Marshal(saved)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// sourceKey hashes what a campaign over the package in dir depends on and can be read
// without building it (see the top of this file).
func sourceKey(ctx context.Context, dir string, cfg fuzzer.Config) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "goweave last campaign %d\x00%s\x00race=%v strategy=%s\x00", lastCampaignVersion, executableID(), cfg.Race, cfg.Strategy)

	// The toolchain as the go command resolves it in dir (go.mod's toolchain line, GOTOOLCHAIN).
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK", "GOMOD")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	h.Write(out)
	lines := strings.Split(string(out), "\n")
	if len(lines) < 8 {
		return "", fmt.Errorf("go env printed %q", out)
	}
	gowork, gomod := lines[6], lines[7]
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("%s is not in a module", dir)
	}
	modRoot := filepath.Dir(gomod)
	for _, f := range []string{gomod, filepath.Join(modRoot, "go.sum"), gowork, gowork + ".sum"} {
		if f != "" && f != ".sum" && f != "off.sum" && f != "off" {
			hashFile(h, f)
		}
	}
	modPath, err := modulePath(gomod)
	if err != nil {
		return "", err
	}

	// The package and the packages of the module it imports, transitively, by their files.
	seen := map[string]bool{}
	queue := []string{filepath.Clean(dir)}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		imports, err := hashDir(h, d)
		if err != nil {
			return "", err
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, modPath)
			if !ok || rel != "" && rel[0] != '/' {
				continue
			}
			queue = append(queue, filepath.Join(modRoot, filepath.FromSlash(strings.TrimPrefix(rel, "/"))))
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashDir hashes the names and contents of the regular files of d (not below it) and
// returns the imports of its Go files.
func hashDir(h io.Writer, d string) ([]string, error) {
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "dir %s\x00", d)
	var imports []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(d, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s %d\x00", e.Name(), len(data))
		h.Write(data)
		if strings.HasSuffix(e.Name(), ".go") {
			f, _ := parser.ParseFile(token.NewFileSet(), path, data, parser.ImportsOnly)
			if f == nil {
				continue
			}
			for _, imp := range f.Imports {
				if p, err := strconv.Unquote(imp.Path.Value); err == nil {
					imports = append(imports, p)
				}
			}
		}
	}
	slices.Sort(imports)
	return slices.Compact(imports), nil
}

func hashFile(h io.Writer, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(h, "%s (missing)\x00", path)
		return
	}
	fmt.Fprintf(h, "%s %d\x00", path, len(data))
	h.Write(data)
}

// modulePath reads the module directive of go.mod.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			rest = strings.TrimSpace(rest)
			if p, err := strconv.Unquote(rest); err == nil {
				return p, nil
			}
			return rest, nil
		}
	}
	return "", fmt.Errorf("%s has no module directive", gomod)
}

// executableID identifies the running goweave build by its path, size and modification
// time: a state saved by another build may not hold (another analysis). Cheaper than the
// engine's hash of the executable, which takes a quarter second on a loaded machine.
var executableID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
})

// lastCampaignMarkdown documents the restored diagnostics, for COMMANDS.md.
func lastCampaignMarkdown() string {
	return "\n## Diagnostics from the last campaign\n\n" +
		"When a Go file is opened and its package (its files, the files of the module's packages it imports,\n" +
		"go.mod, go.sum, go.work), the Go toolchain, goweave and the `race` and `strategy` settings are as they\n" +
		"were at the end of the package's last campaign, that campaign's findings are published at once, before\n" +
		"anything is built, each message ending in `" + lastCampaignSuffix[1:] + "` and its `data`\n" +
		"carrying `\"lastCampaign\": true`. The campaign that follows (background fuzzing, or one you start)\n" +
		"replaces them with its own findings, unmarked. If any of these changed, nothing is published before the\n" +
		"campaign. The findings are saved (merged per code version) under the campaign output directory, in\n" +
		"`lsp/last-*.json`.\n"
}
