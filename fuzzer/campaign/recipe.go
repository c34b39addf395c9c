package campaign

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A Recipe is everything needed to replay one finding later: the schedule, which test of
// which package, the identity of the test binary it was found with, and a hash of every
// source line the schedule and the finding name, so that a replay of changed code is
// refused instead of replaying garbage. The campaign writes one per finding, as JSON, to
// <campaign dir>/findings/<id>.json.
type Recipe struct {
	Version int     `json:"version"`
	Finding Finding `json:"finding"`
	Package string  `json:"package"`
	Dir     string  `json:"dir"`    // package directory: the working directory of the run
	Module  string  `json:"module"` // module root (GOWEAVE_MODULE)
	Test    string  `json:"test"`
	Race    bool    `json:"race,omitempty"`
	Vet     string  `json:"vet,omitempty"` // go test's -vet of the build (Config.Vet)
	// Binary is the SHA-256 of the test binary the finding was found with; BinaryPath a
	// copy of it kept in the campaign directory (may have been pruned since).
	Binary     string `json:"binary"`
	BinaryPath string `json:"binaryPath,omitempty"`
	// Schedule replays the run: the run that found the finding, or for a confirmed
	// finding the rewrite that confirmed it (fuzzer/schedule format). Empty: a free run.
	Schedule string `json:"schedule,omitempty"`
	// Confirm holds, for a predicted finding, the rewrites to try (mutate.Confirm), and
	// ConfirmNotes what each one does.
	Confirm      []string `json:"confirm,omitempty"`
	ConfirmNotes []string `json:"confirmNotes,omitempty"`
	// Lines hashes every source line named by the schedules and the finding.
	Lines []LineHash `json:"lines"`
}

// LineHash is the hash of one source line's text.
type LineHash struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Hash string `json:"hash"` // hex SHA-256 of the line without its newline, 16 digits; "" = no such line
}

const recipeVersion = 1

// recipeParts is what the campaign learns about a finding's recipe while it runs.
type recipeParts struct {
	bin       *build.TestBinary
	test      string
	schedule  []byte   // replays the run that found it, or the rewrite that confirmed it
	rewrites  [][]byte // for a predicted finding
	notes     []string
	confirmed bool
}

// noteRecipe records how to replay finding f, just stored from run ar of t, and for a new
// predicted finding queues its confirmation.
func (c *campaign) noteRecipe(t *testState, ar *AnalyzedRun, f *Finding, isNew bool) {
	rp := c.recipes[f.Fingerprint]
	if rp != nil && rp.confirmed {
		return // the confirming schedule says more than any earlier run's
	}
	rp = &recipeParts{bin: t.bin, test: t.name}
	c.recipes[f.Fingerprint] = rp
	if ar.Request != nil {
		rp.schedule = pinnedChoices(ar.Request.Recipe, f, ar)
	} else if ar.Recorded != nil {
		if b, err := replayOf(ar.Recorded); err == nil {
			rp.schedule = b
		}
	}
	if f.Confidence == analysis.Predicted && !Confirmable(f) {
		f.Confirmation = "not attempted: no rewrite makes a predicted " + f.Kind + " happen (confirmable: " + strings.Join(mutate.ConfirmableKinds, ", ") + ")"
	}
	if !Confirmable(f) || ar.Recorded == nil {
		return
	}
	var err error
	rp.rewrites, rp.notes, err = RewritesFor(ar.Recorded, *f)
	if err != nil {
		f.Confirmation = "not attempted: " + err.Error()
		return
	}
	if isNew {
		c.queueConfirmation(t, ar.Index, f, rp.rewrites)
	}
}

// writeRecipes writes a recipe per finding of rep into the campaign directory, sets each
// finding's Recipe, and keeps the test binaries they name (under kept/).
func (c *campaign) writeRecipes(rep *Report) error {
	dir := filepath.Join(c.dir, "findings")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hashes := map[string]string{} // binary path -> sha256
	kept := map[string]string{}   // binary path -> kept copy
	lines := newLineHasher()
	written := map[string]string{} // ID -> recipe path
	var errs []error
	for i := range rep.Findings {
		f := &rep.Findings[i]
		rp := c.recipes[f.Fingerprint]
		if rp == nil || rp.bin == nil {
			continue // a race-detector finding whose run left no trace
		}
		b := rp.bin
		if _, ok := hashes[b.Path]; !ok {
			hashes[b.Path] = c.binaryHash(b.Path)
			keep := filepath.Join(c.dir, "kept", filepath.Base(b.Path))
			if os.MkdirAll(filepath.Dir(keep), 0o755) == nil && (os.Link(b.Path, keep) == nil || copyFile(b.Path, keep) == nil) {
				kept[b.Path] = keep
			}
		}
		f.Recipe = filepath.Join(dir, f.ID+".json")
		rec := Recipe{
			Version: recipeVersion, Finding: *f, Package: b.Package, Dir: b.Dir, Module: b.Module, Test: rp.test,
			Race: c.cfg.Race, Vet: c.cfg.Vet, Binary: hashes[b.Path], BinaryPath: kept[b.Path], Schedule: string(rp.schedule),
		}
		if !rp.confirmed && f.Confidence == analysis.Predicted {
			for k, s := range rp.rewrites {
				rec.Confirm = append(rec.Confirm, string(s))
				rec.ConfirmNotes = append(rec.ConfirmNotes, rp.notes[k])
			}
		}
		rec.Lines = lines.hashes(rec.namedPositions())
		data, err := json.MarshalIndent(&rec, "", "  ")
		if err == nil {
			err = os.WriteFile(f.Recipe, append(data, '\n'), 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("writing the recipe of %s: %v", f.ID, err))
			f.Recipe = ""
		} else {
			written[f.ID] = f.Recipe
		}
	}
	if err := indexRecipes(written); err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("goweave replay will find these findings only with the same -o (the index of finding IDs could not be written: %v)", err))
	}
	return errors.Join(errs...)
}

// namedPositions lists the source lines the recipe depends on: the finding's positions
// and every position its schedules name.
func (r *Recipe) namedPositions() []schedule.Pos {
	set := map[schedule.Pos]bool{}
	for _, p := range r.Finding.Positions {
		set[schedule.Pos{File: p.File, Line: p.Line}] = true
	}
	for _, text := range append([]string{r.Schedule}, r.Confirm...) {
		s, err := schedule.Unmarshal([]byte(text))
		if text == "" || err != nil {
			continue
		}
		for _, sp := range s.Selects {
			set[sp.Pos] = true
			// the preference numbers the cases as the runtime orders them: reordered
			// clauses would make it prefer another case
			for _, l := range selectcase.ClauseLines(sp.Pos.File, sp.Pos.Line) {
				set[schedule.Pos{File: sp.Pos.File, Line: l}] = true
			}
		}
		for _, d := range s.Delays {
			set[d.Op.Pos], set[d.Until.Pos] = true, true
		}
		if s.Order != nil {
			for _, op := range s.Order.Ops {
				set[op.Pos] = true
			}
		}
	}
	out := make([]schedule.Pos, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// lineHasher hashes source lines, reading each file once.
type lineHasher struct{ files map[string][]string }

func newLineHasher() *lineHasher { return &lineHasher{files: map[string][]string{}} }

func (h *lineHasher) hash(file string, line int) string {
	lines, ok := h.files[file]
	if !ok {
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 16<<20)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			f.Close()
		}
		h.files[file] = lines
	}
	if line < 1 || line > len(lines) {
		return ""
	}
	sum := sha256.Sum256([]byte(lines[line-1]))
	return hex.EncodeToString(sum[:8])
}

func (h *lineHasher) hashes(ps []schedule.Pos) []LineHash {
	out := make([]LineHash, 0, len(ps))
	for _, p := range ps {
		out = append(out, LineHash{File: p.File, Line: p.Line, Hash: h.hash(p.File, p.Line)})
	}
	return out
}

// SourceChangedError says that the code a recipe was recorded with has changed, so a
// replay would not mean anything.
type SourceChangedError struct {
	Lines  []LineHash // named lines whose text differs now (Hash: the recorded hash)
	Binary bool       // the rebuilt test binary differs from the recorded one
}

func (e *SourceChangedError) Error() string {
	var b strings.Builder
	b.WriteString("the source changed since the finding was recorded")
	if len(e.Lines) > 0 {
		b.WriteString(": ")
		for i, l := range e.Lines {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == 5 {
				fmt.Fprintf(&b, "and %d more", len(e.Lines)-5)
				break
			}
			fmt.Fprintf(&b, "%s:%d", filepath.Base(l.File), l.Line)
		}
		b.WriteString(" no longer read as recorded")
	} else if e.Binary {
		b.WriteString(": the rebuilt test binary differs from the recorded one (the package, a dependency, the Go toolchain or goweave's patched runtime changed)")
	}
	b.WriteString("; run goweave fuzz again to get a fresh finding")
	return b.String()
}

// CheckPlace refuses a recipe whose package is not where its finding is: its directory
// must lie in its module (the nearest go.mod above it is the module's), and every file its
// finding and hashes name must lie in that module. A recipe edited, or copied from another
// module, to name another package would otherwise build and run code its finding says
// nothing about. It reads only go.mod files: nothing is built or run.
func (r *Recipe) CheckPlace() error {
	if !filepath.IsAbs(r.Dir) || !filepath.IsAbs(r.Module) {
		return fmt.Errorf("the recipe's dir %q and module %q must be absolute paths", r.Dir, r.Module)
	}
	dir, module := filepath.Clean(r.Dir), filepath.Clean(r.Module)
	if _, ok := below(module, dir); !ok {
		return fmt.Errorf("the recipe's package directory %s is not inside its module %s: not replayed", dir, module)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if d != module {
				return fmt.Errorf("the recipe's package directory %s belongs to the module at %s, not to the recipe's module %s: not replayed", dir, d, module)
			}
			break
		}
		if d == module || d == filepath.Dir(d) {
			return fmt.Errorf("no go.mod at the recipe's module %s (moved or deleted?): not replayed", module)
		}
	}
	if len(r.Finding.Positions) == 0 {
		return fmt.Errorf("the recipe's finding has no position: not replayed")
	}
	files := []string{}
	for _, p := range r.Finding.Positions {
		files = append(files, p.File)
	}
	for _, l := range r.Lines {
		files = append(files, l.File)
	}
	for _, f := range files {
		if _, ok := below(module, f); !ok {
			return fmt.Errorf("the recipe names %s, outside its module %s: not replayed", f, module)
		}
	}
	return nil
}

// CheckSource compares the lines the recipe names with the files as they are now.
func (r *Recipe) CheckSource() error {
	h := newLineHasher()
	var changed []LineHash
	for _, l := range r.Lines {
		if h.hash(l.File, l.Line) != l.Hash {
			changed = append(changed, l)
		}
	}
	if len(changed) > 0 {
		return &SourceChangedError{Lines: changed}
	}
	return nil
}

// CheckBinary compares the test binary at path with the one the recipe was recorded with;
// force accepts a different one (a binary that cannot be read is still an error).
func (r *Recipe) CheckBinary(path string, force bool) error {
	if h, err := fileHash(path); err != nil || (h != r.Binary && !force) {
		return errors.Join(err, &SourceChangedError{Binary: true})
	}
	return nil
}

// LoadRecipe reads a recipe file.
func LoadRecipe(path string) (*Recipe, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recipe
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s is not a goweave replay recipe: %v", path, err)
	}
	if r.Version != recipeVersion || r.Package == "" || r.Test == "" || r.Dir == "" {
		return nil, fmt.Errorf("%s is not a goweave replay recipe of version %d (written by another goweave?)", path, recipeVersion)
	}
	return &r, nil
}

var findingIDPattern = regexp.MustCompile(`^GW[0-9a-f]{10}$`)

// FindRecipe returns the path of the newest recipe of the finding id: among the campaigns
// under outDir (Config.OutDir) when it is given; else the newest in the finding index (see
// findindex.go), whatever directory the campaign ran in, or among the campaigns under the
// default output directory of the module directory dir.
func FindRecipe(outDir, dir, id string) (string, error) {
	if !findingIDPattern.MatchString(id) {
		return "", fmt.Errorf("%q is not a finding id (GW followed by 10 hex digits) nor a recipe file", id)
	}
	if outDir == "" {
		if path, ok := lookupIndex(id, dir); ok {
			return path, nil
		}
		var err error
		if outDir, err = DefaultOutDir(dir); err != nil {
			return "", err
		}
	}
	matches, err := filepath.Glob(filepath.Join(outDir, "*", "findings", id+".json"))
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("no recipe of finding %s under %s nor in goweave's index of findings (run goweave fuzz first; with -o, give replay the same -o)", id, outDir)
	}
	// Campaign directories start with their UTC start time: the last is the newest.
	slices.Sort(matches)
	slices.Reverse(matches)
	return newestOwn(matches, dir), nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// replayOf is the schedule that replays recorded run tr whole (mutate.Replay: every
// operation in its recorded order, atomics included, every select its recorded case), as a
// recipe: a free run's finding, a discarded run's lone rerun (overlap.go), a passing run
// replayed after failures (leftstate.go).
func replayOf(tr *trace.Trace) ([]byte, error) {
	return schedule.Marshal(mutate.Replay(&mutate.Run{Trace: tr, SelectPartners: map[int][]int{}}, 0))
}
