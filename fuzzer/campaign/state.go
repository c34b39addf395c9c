package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/internal/atomicfile"
)

// Campaign state: what a campaign learned about a test, saved in OutDir/state when it ends,
// so that the next campaign of the same test binary (a later goweave fuzz, the language
// server after a restart) continues where it stopped: it keeps the interleavings already
// seen (coverage), does not run again the schedules already run, runs first the schedules
// still queued, carries GFuzz's feedback memory, and reports the earlier findings (marked
// Earlier) without having to find them again. A state whose test binary differs (the code
// or the build changed), or that another goweave build saved, is ignored and replaced: its
// schedules and findings may no longer hold. Config.Fresh ignores it too.

const stateVersion = 2 // 2: queued schedules stored as edits of bases (compact.go)

// savedTest is the state of one test, as saved.
type savedTest struct {
	Version    int      `json:"version"`
	Goweave    string   `json:"goweave"` // toolID of the goweave that saved it: another analysis may find otherwise
	Package    string   `json:"package"`
	Test       string   `json:"test"`
	Strategy   string   `json:"strategy"`
	Race       bool     `json:"race"`
	Binary     string   `json:"binary"`     // sha256 of the test binary
	Runs       int      `json:"runs"`       // runs over all campaigns
	Campaigns  int      `json:"campaigns"`  // campaigns that ran the test
	Signatures []string `json:"signatures"` // distinct interleavings seen
	// Proposed are the keys of the schedules already queued or run; Queue the schedules
	// proposed but not run yet, in queue order.
	Proposed []string       `json:"proposed"`
	Queue    []savedRequest `json:"queue"`
	// Bases are the schedules the queue's are stored against (compact.go).
	Bases    []string        `json:"bases,omitempty"`
	GFuzz    json.RawMessage `json:"gfuzz,omitempty"`
	Findings []Finding       `json:"findings"`
	// SlowestPass is the longest passing run over all campaigns, in seconds: it sets how
	// long a run still making progress at its time limit may go on (slowLimit).
	SlowestPass float64 `json:"slowestPass,omitempty"`
	// LeftState: the latest campaign found the test failing in every run after its first
	// pass (leftstate.go), or failing in every run after an earlier campaign did: the next
	// campaign, which then fails in every run, says what the earlier one saw.
	LeftState bool `json:"leftState,omitempty"`
}

// savedRequest is a queued schedule: Bases[Base-1], edited by Edits when there are any.
type savedRequest struct {
	Strategy string     `json:"strategy"`
	Key      string     `json:"key"`
	Note     string     `json:"note,omitempty"`
	Base     int        `json:"base"`
	Edits    []lineEdit `json:"edits,omitempty"`
}

// Bounds of a state file, which every campaign of the test reads. Beyond them some
// interleavings are forgotten (a later run showing one again counts it as new), some
// schedules already run may run again, and the queue keeps each strategy's first proposals.
const (
	maxSavedSignatures  = 10_000
	maxSavedProposed    = 4096
	maxSavedPerStrategy = 64
	// stateMaxAge: a state not written for that long (a renamed test, a strategy tried
	// once) is deleted, and with it the pin on its findings' campaign directory.
	stateMaxAge = 30 * 24 * time.Hour
)

// toolID identifies the goweave build (a hash of the running executable): a state saved by
// another build is ignored, as its analysis or schedule format may differ.
var toolID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	h, _ := fileHash(exe)
	return h
})

// binaryHash returns the sha256 of a test binary, computed once per campaign.
func (c *campaign) binaryHash(path string) string {
	if h, ok := c.binHashes[path]; ok {
		return h
	}
	h, _ := fileHash(path)
	if c.binHashes == nil {
		c.binHashes = map[string]string{}
	}
	c.binHashes[path] = h
	return h
}

// statePath is where the state of test is saved: one file per test, strategy and race
// mode, because a strategy's memory is no use to another and -race changes the binary.
func statePath(outDir, pkg, test, strategy string, race bool) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%v", pkg, test, strategy, race))
	return filepath.Join(outDir, "state", hex.EncodeToString(sum[:10])+".json")
}

func (c *campaign) statePath(t *testState) string {
	return statePath(c.cfg.OutDir, t.bin.Package, t.name, c.cfg.Strategy, c.cfg.Race)
}

// loadStates restores the saved state of every test whose binary is unchanged. A state that
// cannot be read is ignored (and replaced at the end): it only saves work.
func (c *campaign) loadStates() {
	for _, t := range c.tests {
		if s := c.readState(t); s != nil {
			c.restore(t, s)
		}
	}
}

// readState returns the saved state of t if it is valid for this campaign: same format,
// same goweave build, same test binary.
func (c *campaign) readState(t *testState) *savedTest {
	data, err := os.ReadFile(c.statePath(t))
	if err != nil {
		return nil
	}
	var s savedTest
	if json.Unmarshal(data, &s) != nil || s.Version != stateVersion || s.Goweave != toolID() || s.Package != t.bin.Package || s.Test != t.name {
		return nil
	}
	if h := c.binaryHash(t.bin.Path); h == "" || s.Binary != h {
		return nil
	}
	return &s
}

// readLeftBefore reads from each test's saved state, under -fresh too, whether the same test
// binary failed for state left behind (leftstate.go): not a result, only how this
// campaign words the failure if the state is still there.
func (c *campaign) readLeftBefore() {
	for _, t := range c.tests {
		data, err := os.ReadFile(c.statePath(t))
		if err != nil {
			continue
		}
		var s struct {
			Package, Test, Binary string
			LeftState             bool
		}
		if json.Unmarshal(data, &s) != nil || s.Package != t.bin.Package || s.Test != t.name {
			continue
		}
		// the verdict only for the same test binary: a changed test may fail otherwise
		t.leftBefore = s.LeftState && s.Binary != "" && s.Binary == c.binaryHash(t.bin.Path)
	}
}

// enoughAlready ends the campaign of a test before its first run when the findings restored
// for it already satisfy Config.Enough.
func (c *campaign) enoughAlready() {
	if c.cfg.Enough == nil {
		return
	}
	for _, t := range c.tests {
		if len(t.found) > 0 && c.cfg.Enough(TestID{Package: t.bin.Package, Dir: t.bin.Dir, Test: t.name}, c.grouped(derefAll(t.found))) {
			t.enough = true
		}
	}
}

func (c *campaign) restore(t *testState, s *savedTest) {
	t.earlierRuns, t.earlierCampaigns = s.Runs, s.Campaigns
	t.slowestPass = time.Duration(s.SlowestPass * float64(time.Second))
	t.seenBefore = map[string]bool{}
	for _, sig := range s.Signatures {
		t.seenBefore[sig] = true
	}
	queued := 0
	for _, r := range s.Queue {
		if r.Base < 1 || r.Base > len(s.Bases) {
			continue
		}
		recipe, ok := s.Bases[r.Base-1], true
		if len(r.Edits) > 0 {
			recipe, ok = expand(recipe, r.Edits)
		}
		if !ok || queued+len(recipe) > maxQueueBytes {
			continue
		}
		queued += len(recipe)
		t.queue = append(t.queue, &RunRequest{Strategy: r.Strategy, Key: r.Key, Note: r.Note, Recipe: []byte(recipe)})
	}
	if st, ok := t.strategy.(*steeringStrategy); ok {
		for _, k := range s.Proposed {
			st.proposed[k] = true
		}
		if g := st.gfuzz(); g != nil && len(s.GFuzz) > 0 {
			if state, err := mutate.LoadGFuzzState(s.GFuzz); err == nil {
				g.State = state
			}
		}
	}
	for i := range s.Findings {
		f := s.Findings[i]
		f.Earlier = true
		if _, dup := c.findings[f.Fingerprint]; dup {
			continue
		}
		c.findings[f.Fingerprint] = &f
		if key := primaryKey(&f); c.byPrimary[key] == nil {
			c.byPrimary[key] = &f
		}
		t.found = append(t.found, &f)
	}
}

// saveStates writes the state of every test that ran, with the findings of rep (whose
// recipes are written). A campaign of the same test that saved meanwhile (the language
// server's and a terminal's) is merged in: its runs, interleavings, schedules run and
// findings stay. Each file is replaced atomically.
func (c *campaign) saveStates(rep *Report) error {
	dir := filepath.Join(c.cfg.OutDir, "state")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, t := range c.tests {
		if t.runs == 0 {
			continue
		}
		h := c.binaryHash(t.bin.Path)
		if h == "" {
			continue
		}
		s := savedTest{
			Version: stateVersion, Goweave: toolID(), Package: t.bin.Package, Test: t.name, Strategy: c.cfg.Strategy, Race: c.cfg.Race,
			Binary: h, Runs: t.earlierRuns + t.runs, Campaigns: t.earlierCampaigns + 1,
			Proposed: []string{}, Queue: []savedRequest{}, Findings: []Finding{},
			SlowestPass: t.slowestPass.Seconds(),
			LeftState:   t.leftState() || (t.leftBefore && t.alwaysFails()),
		}
		signatures := map[string]bool{}
		maps.Copy(signatures, t.signatures)
		maps.Copy(signatures, t.seenBefore)
		proposed := map[string]bool{}
		if st, ok := t.strategy.(*steeringStrategy); ok {
			proposed = maps.Clone(st.proposed)
			if g := st.gfuzz(); g != nil {
				s.GFuzz, _ = json.Marshal(g.State)
			}
		}
		byFingerprint := map[string]int{}
		for _, f := range rep.Findings {
			if f.Package == t.bin.Package && f.Test == t.name {
				byFingerprint[f.Fingerprint] = len(s.Findings)
				s.Findings = append(s.Findings, f)
			}
		}
		if other := c.readState(t); other != nil && other.Runs > t.earlierRuns {
			// Saved by a campaign that ran beside this one.
			s.Runs = other.Runs + t.runs
			s.Campaigns = max(other.Campaigns, t.earlierCampaigns) + 1
			addAll(signatures, other.Signatures)
			addAll(proposed, other.Proposed)
			for _, f := range other.Findings {
				i, ok := byFingerprint[f.Fingerprint]
				switch {
				case !ok:
					f.Earlier = true
					s.Findings = append(s.Findings, f)
				case s.Findings[i].Earlier && !f.Earlier:
					s.Findings[i] = f // found again there, only carried here
				}
			}
		}
		s.Signatures = capped(slices.Sorted(maps.Keys(signatures)), maxSavedSignatures)
		s.Proposed = capped(slices.Sorted(maps.Keys(proposed)), maxSavedProposed)
		data, err := c.fitState(&s, t.queue)
		if err == nil {
			err = atomicfile.Write(c.statePath(t), data)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("saving the campaign state of %s: %v", t.name, err))
		}
	}
	return errors.Join(errs...)
}

func addAll(set map[string]bool, keys []string) {
	for _, k := range keys {
		set[k] = true
	}
}

func capped(keys []string, n int) []string {
	if len(keys) > n {
		return keys[len(keys)-n:]
	}
	return keys
}

// fitState encodes s with as much of queue as its byte budget (Config.StateBytes) leaves
// room for, and if even the rest does not fit, fewer interleavings and schedule keys.
func (c *campaign) fitState(s *savedTest, queue []*RunRequest) ([]byte, error) {
	budget := c.cfg.StateBytes
	if budget <= 0 {
		budget = DefaultStateBytes
	}
	rest, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	room := budget - int64(len(rest))
	var comp compactor
	perStrategy := map[string]int{}
	for _, r := range queue {
		if perStrategy[r.Strategy] >= maxSavedPerStrategy {
			continue
		}
		bases := len(comp.bases)
		base, edits := comp.add(string(r.Recipe))
		size := int64(editsSize(edits) + len(r.Key) + len(r.Note) + 64)
		if len(comp.bases) > bases {
			size += int64(len(r.Recipe)) + int64(strings.Count(string(r.Recipe), "\n")) // escaped newlines
		}
		if room -= size; room < 0 {
			comp.bases = comp.bases[:bases] // the latest proposals are the least promising: stop
			break
		}
		perStrategy[r.Strategy]++
		s.Queue = append(s.Queue, savedRequest{Strategy: r.Strategy, Key: r.Key, Note: r.Note, Base: base, Edits: edits})
	}
	s.Bases = comp.bases
	for {
		data, err := json.Marshal(s)
		if err != nil || int64(len(data)) <= budget {
			return data, err
		}
		switch {
		case len(s.Queue) > 0:
			s.Queue, s.Bases = nil, nil
		case len(s.Signatures) > 0 || len(s.Proposed) > 0:
			s.Signatures = s.Signatures[len(s.Signatures)/2:]
			s.Proposed = s.Proposed[len(s.Proposed)/2:]
		case len(s.GFuzz) > 0:
			s.GFuzz = nil
		default:
			return nil, fmt.Errorf("the findings alone take %d bytes, over the state budget of %d", len(data), budget)
		}
	}
}

// savedCampaigns returns the campaign directories under outDir that saved states point at
// (their findings' recipes, traces and schedules): the pruner keeps them. It deletes the
// states not written for stateMaxAge.
func savedCampaigns(outDir string, now time.Time) map[string]bool {
	keep := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(outDir, "state", "*.json"))
	for _, file := range files {
		if fi, err := os.Stat(file); err == nil && now.Sub(fi.ModTime()) > stateMaxAge {
			os.Remove(file)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var s struct { // only what pins directories
			Findings []struct{ Recipe, Trace, Replay string }
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		for _, f := range s.Findings {
			for _, p := range []string{f.Recipe, f.Trace, f.Replay} {
				if rel, ok := below(outDir, p); ok {
					keep[strings.Split(filepath.ToSlash(rel), "/")[0]] = true
				}
			}
		}
	}
	return keep
}

// gfuzz returns the GFuzz strategy among s's, if any: its feedback memory is saved.
func (s *steeringStrategy) gfuzz() *mutate.GFuzz {
	for _, m := range s.strategies {
		if g, ok := m.(*mutate.GFuzz); ok {
			return g
		}
	}
	return nil
}
