package lsp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/lsp/timeline"
)

// ShowTimelineResult is the result of goweave.show_timeline.
type ShowTimelineResult struct {
	Path   string  `json:"path"`   // the HTML file written
	URI    uri.URI `json:"uri"`    // its file URI
	Opened bool    `json:"opened"` // the server had the client open it (window/showDocument)
}

// commandShowTimeline writes the timeline page of a finding. A client that declared the
// experimental capability goweave.openTimeline opens it itself (VS Code in a webview panel,
// which works in remote and web windows too, where a file: URI of the server's machine does
// not); other clients are asked to open it with window/showDocument, and a client that
// cannot is told the file's path.
func (s *Server) commandShowTimeline(ctx context.Context, args *ShowTimelineArgs) (any, error) {
	sf, ok := s.findings.get(args.ID)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.show_timeline: no finding %q (its package may have been fuzzed again since; use the new diagnostic)", args.ID)
	}
	return s.runDetached(ctx, "timeline of "+args.ID, func() (any, error) {
		t := s.timelineOf(sf)
		var buf bytes.Buffer
		if err := timeline.Render(&buf, t); err != nil {
			return nil, fmt.Errorf("rendering the timeline of %s: %v", sf.ID, err)
		}
		dir := s.timelineDir()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("writing the timeline: %v", err)
		}
		path := filepath.Join(dir, sf.ID+".html")
		if err := writeFileAtomic(path, buf.Bytes()); err != nil {
			return nil, fmt.Errorf("writing the timeline: %v", err)
		}
		res := ShowTimelineResult{Path: path, URI: uri.File(path)}
		s.mu.Lock()
		canShow, opensItself := s.caps.showDocument, s.caps.openTimeline
		s.mu.Unlock()
		if opensItself {
			return res, nil
		}
		if canShow {
			yes := true
			r, err := s.client.ShowDocument(s.ctx, &protocol.ShowDocumentParams{URI: uri.File(path), External: &yes, TakeFocus: &yes})
			res.Opened = err == nil && r != nil && r.Success
			if err != nil {
				s.log.Warn("window/showDocument failed", "err", err)
			}
		}
		if !res.Opened {
			s.tell(protocol.MessageTypeInfo, "timeline of %s written to %s", sf.ID, path)
		}
		return res, nil
	})
}

// timelineDir is where timeline pages go: next to the campaign's output when it has
// a directory, else in the user cache.
func (s *Server) timelineDir() string {
	if s.timelines != "" {
		return s.timelines
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "goweave", "timelines")
	}
	return filepath.Join(os.TempDir(), "goweave-timelines")
}

// WithTimelineDir sets the directory timeline pages are written to.
func WithTimelineDir(dir string) Option { return func(s *Server) { s.timelines = dir } }

// timelineOf builds the timeline of a finding from the trace of the run that found it,
// or, when that trace cannot be read, from what the finding itself records.
func (s *Server) timelineOf(sf storedFinding) *timeline.Timeline {
	var t *timeline.Timeline
	tr, err := readTrace(sf.Trace)
	if err == nil {
		marks := make([]timeline.Mark, len(sf.Positions))
		for i, p := range sf.Positions {
			marks[i] = timeline.Mark{File: p.File, Line: p.Line, Role: p.Role}
		}
		t = timeline.FromTrace(tr, marks)
	} else {
		s.log.Warn("timeline without trace", "finding", sf.ID, "err", err)
		t = findingTimeline(sf)
		t.Note = fmt.Sprintf("The trace of the run could not be read (%v), so only the finding's own operations are shown, without happens-before edges.", err)
	}
	t.Title = fmt.Sprintf("%s in %s", sf.Kind, sf.Test)
	t.Subtitle = fmt.Sprintf("%s [%s] — finding %s, run %d (%s)", sf.Message, sf.Confidence, sf.ID, sf.Run, sf.Strategy)
	return t
}

func readTrace(path string) (*trace.Trace, error) {
	if path == "" {
		return nil, fmt.Errorf("the finding has no trace")
	}
	return trace.ReadFile(path)
}

// findingTimeline shows a finding's positions, one lane per goroutine when the finding
// names one goroutine per position.
func findingTimeline(sf storedFinding) *timeline.Timeline {
	t := &timeline.Timeline{}
	oneLanePerPosition := len(sf.Goroutines) == len(sf.Positions) && len(sf.Goroutines) > 0
	if oneLanePerPosition {
		for _, g := range sf.Goroutines {
			label := fmt.Sprintf("goroutine %d", g.ID)
			if g.Spawn != "" {
				label += " (go at " + filepath.Base(g.Spawn) + ")"
			}
			t.Lanes = append(t.Lanes, timeline.Lane{Label: label})
		}
	} else {
		t.Lanes = []timeline.Lane{{Label: "operations of the finding"}}
	}
	for i, p := range sf.Positions {
		lane := 0
		if oneLanePerPosition {
			lane = i
		}
		t.Events = append(t.Events, timeline.Event{
			Lane: lane, Label: p.Role, Pos: fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line), Highlight: true,
		})
	}
	return t
}

// writeFileAtomic writes data to path through a temporary file renamed over it. A finding's
// page has one name for every server showing it (two editors on one workspace, or the
// editors' tests side by side in CI), and os.WriteFile truncates before it writes: another
// server's client reading the page in between got an empty or half page.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
