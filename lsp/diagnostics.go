package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer"
)

// KindDocURL is the documentation of the bug kinds; a diagnostic's codeDescription
// links to the section of its kind.
const KindDocURL = "https://github.com/goweave/goweave/blob/main/docs/kinds.md"

// diagnosticSource is the source of every goweave diagnostic.
const diagnosticSource = "goweave"

// DiagnosticData is the data member of a goweave diagnostic: what code actions need.
type DiagnosticData struct {
	ID   string `json:"id"`
	Test string `json:"test,omitempty"`
	// LastCampaign: the finding is from the last campaign, saved, and no campaign has
	// run the unchanged code again yet (lastcampaign.go).
	LastCampaign bool `json:"lastCampaign,omitempty"`
}

// A storedFinding is a finding with where each of its positions sits in the files as
// the editor shows them now.
type storedFinding struct {
	fuzzer.Finding
	dir    string        // directory of the package whose campaign found it
	cfg    fuzzer.Config // that campaign's configuration, for replays
	places []placement   // one per Finding.Positions
	// evidence hashes the source the finding was seen in (see evidence.go).
	evidence string
	// fromLast: restored from the last campaign's saved findings; no campaign of this
	// session has reported it yet.
	fromLast bool
}

// A placement is the current range of a finding's position. Edits move it or, when
// they touch its lines, invalidate it.
type placement struct {
	path  string
	rng   protocol.Range
	valid bool
}

// findingStore holds the findings of all campaigns.
type findingStore struct {
	mu        sync.Mutex
	byID      map[string]*storedFinding
	published map[string]string // path -> what was last published, to skip repeats
	publishMu sync.Mutex        // orders publications
}

func newFindingStore() *findingStore {
	return &findingStore{byID: map[string]*storedFinding{}, published: map[string]string{}}
}

// replace installs the findings of a campaign over dir (of one test when test is not
// empty) in place of that scope's older findings. An older finding whose evidence stands
// (its source unchanged) is kept when the campaign did not find it again, and wins over the
// new instance of the same bug when its confidence is stronger. It returns the files whose
// diagnostics may have changed.
func (fs *findingStore) replace(dir, test string, cfg fuzzer.Config, found []*storedFinding) []string {
	for _, sf := range found {
		sf.dir, sf.cfg = dir, cfg
		sf.evidence = evidenceOf(dir, sf.Positions)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var paths []string
	standing := map[string]*storedFinding{} // by fingerprint
	for id, sf := range fs.byID {
		if sf.dir == dir && (test == "" || sf.Test == test) {
			paths = append(paths, sf.paths()...)
			delete(fs.byID, id)
			// A restored finding is the last campaign's word, which this one supersedes.
			if !sf.fromLast && sf.evidence == evidenceOf(sf.dir, sf.Positions) {
				standing[sf.Fingerprint] = sf
			}
		}
	}
	for _, sf := range found {
		if old, ok := standing[sf.Fingerprint]; ok {
			delete(standing, sf.Fingerprint)
			if confidenceRank(old.Confidence) > confidenceRank(sf.Confidence) {
				sf = old
			}
		}
		fs.byID[sf.ID] = sf
		paths = append(paths, sf.paths()...)
	}
	for _, old := range standing {
		fs.byID[old.ID] = old
	}
	return uniq(paths)
}

// restore installs the findings of the last campaign over dir, unless the store already
// has findings of dir (a campaign of this session was quicker). It returns the files
// whose diagnostics may have changed.
func (fs *findingStore) restore(dir string, cfg fuzzer.Config, found []*storedFinding) []string {
	for _, sf := range found {
		sf.dir, sf.cfg = dir, cfg
		sf.evidence = evidenceOf(dir, sf.Positions)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, sf := range fs.byID {
		if sf.dir == dir {
			return nil
		}
	}
	var paths []string
	for _, sf := range found {
		fs.byID[sf.ID] = sf
		paths = append(paths, sf.paths()...)
	}
	return uniq(paths)
}

// clear forgets the findings of the package in dir, or all when dir is empty.
func (fs *findingStore) clear(dir string) []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var paths []string
	for id, sf := range fs.byID {
		if dir == "" || sf.dir == dir {
			paths = append(paths, sf.paths()...)
			delete(fs.byID, id)
		}
	}
	return uniq(paths)
}

func (fs *findingStore) get(id string) (storedFinding, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	sf, ok := fs.byID[id]
	if !ok {
		return storedFinding{}, false
	}
	return *sf, true
}

// confirm records that a replay reproduced the finding.
func (fs *findingStore) confirm(id string) []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	sf, ok := fs.byID[id]
	if !ok {
		return nil
	}
	sf.Confidence = analysis.Confirmed
	return sf.paths()
}

func (sf *storedFinding) paths() []string {
	var ps []string
	for _, p := range sf.places {
		if p.path != "" {
			ps = append(ps, p.path)
		}
	}
	return ps
}

// applyEdits moves the placements in path by the edits, in order: a placement after an
// edit moves with it, one on a line the edit touches is invalidated. It reports whether
// any placement changed.
func (fs *findingStore) applyEdits(path string, edits []lineEdit) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	changed := false
	for _, sf := range fs.byID {
		for i := range sf.places {
			p := &sf.places[i]
			if !p.valid || p.path != path {
				continue
			}
			for _, e := range edits {
				start, end := int(p.rng.Start.Line), int(p.rng.End.Line)
				switch {
				case e.full:
					p.valid = false
				case e.endLine < start:
					p.rng.Start.Line = uint32(start + e.delta())
					p.rng.End.Line = uint32(end + e.delta())
				case e.startLine > end:
					continue
				default:
					p.valid = false
				}
				changed = true
				if !p.valid {
					break
				}
			}
		}
	}
	return changed
}

// forgetPlacements invalidates every placement in path.
func (fs *findingStore) forgetPlacements(path string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, sf := range fs.byID {
		for i := range sf.places {
			if sf.places[i].path == path {
				sf.places[i].valid = false
			}
		}
	}
}

// dependents returns the files whose diagnostics mention a position in path.
func (fs *findingStore) dependents(path string) []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	paths := []string{path}
	for _, sf := range fs.byID {
		if slices.Contains(sf.paths(), path) && len(sf.places) > 0 {
			paths = append(paths, sf.places[0].path)
		}
	}
	return uniq(paths)
}

// diagnostics returns the diagnostics whose primary position is in path, sorted by
// range. Never nil: an empty slice clears the file in the client.
func (fs *findingStore) diagnostics(path string, relatedInfo bool) []protocol.Diagnostic {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	diags := []protocol.Diagnostic{}
	for _, sf := range fs.byID {
		if len(sf.places) == 0 || sf.places[0].path != path || !sf.places[0].valid {
			continue
		}
		diags = append(diags, sf.diagnostic(relatedInfo))
	}
	sort.Slice(diags, func(i, j int) bool {
		a, b := diags[i].Range.Start, diags[j].Range.Start
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Character != b.Character {
			return a.Character < b.Character
		}
		return string(diags[i].Code.(protocol.String)) < string(diags[j].Code.(protocol.String))
	})
	return diags
}

func (sf *storedFinding) diagnostic(relatedInfo bool) protocol.Diagnostic {
	severity := protocol.DiagnosticSeverityError
	switch fuzzer.SeverityOf(&sf.Finding) {
	case analysis.SeverityWarning:
		severity = protocol.DiagnosticSeverityWarning
	case fuzzer.SeverityHint:
		severity = protocol.DiagnosticSeverityHint // a prediction its confirmation refuted
	}
	msg := sf.Message
	if sf.Confidence != "" {
		msg += " [" + string(sf.Confidence) + "]"
	}
	if sf.fromLast {
		msg += lastCampaignSuffix
	}
	var related []protocol.DiagnosticRelatedInformation
	for i, pos := range sf.Positions[1:] {
		p := sf.places[i+1]
		if !p.valid {
			continue
		}
		role := pos.Role
		if role == "" {
			role = "related operation"
		}
		if relatedInfo {
			related = append(related, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: uri.File(p.path), Range: p.rng},
				Message:  role,
			})
		} else {
			msg += fmt.Sprintf("\n%s: %s:%d:%d", role, filepath.Base(p.path), p.rng.Start.Line+1, p.rng.Start.Character+1)
		}
	}
	data, _ := json.Marshal(DiagnosticData{ID: sf.ID, Test: sf.Test, LastCampaign: sf.fromLast})
	return protocol.Diagnostic{
		Range:              sf.places[0].rng,
		Severity:           severity,
		Code:               protocol.String(sf.Kind),
		CodeDescription:    protocol.CodeDescription{Href: uri.URI(KindDocURL + "#" + sf.Kind)},
		Source:             protocol.NewOptional(diagnosticSource),
		Message:            protocol.String(msg),
		RelatedInformation: related,
		Data:               data,
	}
}

// place anchors the positions of a finding in the files as the editor shows them. A
// position in a file whose open buffer differs from the file on disk at that line (the
// run saw the disk) is not placed, so that no diagnostic points at the wrong line.
func (s *Server) place(f fuzzer.Finding) *storedFinding {
	sf := &storedFinding{Finding: f, places: make([]placement, len(f.Positions))}
	parsed := map[string]*fileOps{}
	for i, pos := range f.Positions {
		if pos.File == "" {
			continue
		}
		path := filepath.Clean(pos.File)
		sf.places[i].path = path
		ops, ok := parsed[path]
		if !ok {
			ops = s.opsOf(path, pos.Line)
			parsed[path] = ops
		}
		if ops == nil {
			continue
		}
		rng, ok := ops.rangeAt(pos.Line, pos.Column, pos.Role, f.Kind)
		sf.places[i].rng, sf.places[i].valid = rng, ok
	}
	return sf
}

// opsOf parses the text of path as the editor has it, or nil when that text cannot
// be trusted at line.
func (s *Server) opsOf(path string, line int) *fileOps {
	disk, diskErr := os.ReadFile(path)
	text, _, dirty, open := s.openText(path)
	switch {
	case !open && diskErr != nil:
		return nil
	case !open:
		text = string(disk)
	case dirty:
		if diskErr != nil {
			return nil
		}
		_, diskLine, ok1 := lineAt(string(disk), line)
		_, bufLine, ok2 := lineAt(text, line)
		if !ok1 || !ok2 || diskLine != bufLine {
			return nil
		}
	}
	return parseOps(path, text)
}

// publishFile sends the diagnostics of path, with the document version when it is
// open, unless they are what the client already has.
func (s *Server) publishFile(path string) {
	s.findings.publishMu.Lock()
	defer s.findings.publishMu.Unlock()
	s.mu.Lock()
	relatedInfo := s.caps.relatedInformation
	s.mu.Unlock()
	diags := s.findings.diagnostics(path, relatedInfo)
	_, version, _, open := s.openText(path)
	key, _ := protocol.Marshal(diags)
	s.findings.mu.Lock()
	last, seen := s.findings.published[path]
	if seen && last == string(key) {
		s.findings.mu.Unlock()
		return
	}
	if !seen && len(diags) == 0 {
		s.findings.mu.Unlock()
		return
	}
	s.findings.published[path] = string(key)
	s.findings.mu.Unlock()

	params := &protocol.PublishDiagnosticsParams{URI: uri.File(path), Diagnostics: diags}
	if open {
		params.Version = protocol.NewOptional(version)
	}
	if err := s.client.PublishDiagnostics(s.ctx, params); err != nil {
		s.log.Warn("publishing diagnostics failed", "path", path, "err", err)
	}
}

// publishAffected republishes path and every file whose diagnostics refer to it.
func (s *Server) publishAffected(path string) {
	for _, p := range s.findings.dependents(path) {
		s.publishFile(p)
	}
}

func (s *Server) publishAll(paths []string) {
	for _, p := range paths {
		s.publishFile(p)
	}
}

func uniq(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// findingID extracts the finding id of a goweave diagnostic.
func findingID(d protocol.Diagnostic) (string, bool) {
	if src, _ := d.Source.Get(); src != diagnosticSource || len(d.Data) == 0 {
		return "", false
	}
	var data DiagnosticData
	if err := json.Unmarshal(d.Data, &data); err != nil || data.ID == "" {
		return "", false
	}
	return data.ID, true
}

// plural formats n and a noun in singular or plural.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
