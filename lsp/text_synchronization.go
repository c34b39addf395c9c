package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// A document is an open file as the client sees it.
type document struct {
	uri     uri.URI
	path    string
	version int32
	text    string
	// dirty: edited since it was opened or last saved, so the file on disk (which
	// campaigns run) may differ from text.
	dirty bool
}

// DidOpen implements textDocument/didOpen.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	td := params.TextDocument
	if !td.URI.IsFile() {
		return nil
	}
	doc := &document{uri: td.URI, path: filepath.Clean(td.URI.FsPath()), version: td.Version, text: td.Text}
	s.mu.Lock()
	s.docs[td.URI] = doc
	s.mu.Unlock()
	s.publishFile(doc.path)
	// Any Go file of a package with tests: "while you edit" starts with the file you
	// edit, which is rarely the test.
	if strings.HasSuffix(doc.path, ".go") {
		// The last campaign's findings first, while this one builds (lastcampaign.go).
		s.restoreLastCampaign(filepath.Dir(doc.path))
		s.campaigns.background(filepath.Dir(doc.path), "opened")
	}
	return nil
}

// DidChange implements textDocument/didChange (incremental and full changes). An edit
// cancels the running campaign of the file's package, whose results would no longer
// match the code, and moves or drops the file's diagnostics.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	doc, ok := s.docs[params.TextDocument.URI]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("didChange for %s, which is not open", params.TextDocument.URI)
	}
	previous := doc.version
	var edits []lineEdit
	var err error
	for _, change := range params.ContentChanges {
		var e lineEdit
		doc.text, e, err = applyChange(doc.text, change)
		if err != nil {
			break
		}
		edits = append(edits, e)
	}
	doc.version = params.TextDocument.Version
	doc.dirty = true
	path := doc.path
	s.mu.Unlock()
	if params.TextDocument.Version <= previous {
		s.logf(protocol.MessageTypeWarning, "didChange of %s: version %d does not increase (had %d)", params.TextDocument.URI, params.TextDocument.Version, previous)
	}
	if err != nil {
		// The client and the server disagree about the text: nothing anchored in this
		// file can be trusted any more.
		s.findings.forgetPlacements(path)
		s.publishAffected(path)
		return fmt.Errorf("didChange for %s: %v", params.TextDocument.URI, err)
	}

	s.campaigns.edited(filepath.Dir(path))
	if s.findings.applyEdits(path, edits) {
		s.publishAffected(path)
	}
	return nil
}

// DidSave implements textDocument/didSave: the package is fuzzed again.
func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	doc, ok := s.docs[params.TextDocument.URI]
	if ok {
		if params.Text != nil {
			doc.text = *params.Text
		}
		doc.dirty = false
	}
	s.mu.Unlock()
	if !params.TextDocument.URI.IsFile() {
		return nil
	}
	path := filepath.Clean(params.TextDocument.URI.FsPath())
	if strings.HasSuffix(path, ".go") {
		s.campaigns.background(filepath.Dir(path), "saved")
	}
	return nil
}

// DidClose implements textDocument/didClose. The file's diagnostics stay: they
// describe the package, not the editor buffer.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	delete(s.docs, params.TextDocument.URI)
	s.mu.Unlock()
	return nil
}

// openText returns the text of the open document at path.
func (s *Server) openText(path string) (text string, version int32, dirty, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.path == path {
			return d.text, d.version, d.dirty, true
		}
	}
	return "", 0, false, false
}

// lineEdit summarizes one text change in whole lines: the lines from startLine to
// endLine (0-based, inclusive) were replaced by text that spans newLines lines.
// full marks a replacement of the whole document.
type lineEdit struct {
	startLine, endLine int
	newLines           int
	full               bool
}

// delta is how far the edit moves the lines after it.
func (e lineEdit) delta() int { return e.newLines - (e.endLine - e.startLine + 1) }

// applyChange applies one content change to text.
func applyChange(text string, change protocol.TextDocumentContentChangeEvent) (string, lineEdit, error) {
	switch c := change.(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		return c.Text, lineEdit{full: true}, nil
	case *protocol.TextDocumentContentChangePartial:
		start, err := offsetOf(text, c.Range.Start)
		if err != nil {
			return text, lineEdit{}, err
		}
		end, err := offsetOf(text, c.Range.End)
		if err != nil {
			return text, lineEdit{}, err
		}
		if end < start {
			return text, lineEdit{}, fmt.Errorf("range end %v before start %v", c.Range.End, c.Range.Start)
		}
		e := lineEdit{
			startLine: int(c.Range.Start.Line),
			endLine:   int(c.Range.End.Line),
			newLines:  strings.Count(c.Text, "\n") + 1,
		}
		return text[:start] + c.Text + text[end:], e, nil
	default:
		return text, lineEdit{}, fmt.Errorf("unsupported content change %T", change)
	}
}

// offsetOf converts an LSP position (UTF-16 columns) to a byte offset in text. A
// position past the end of a line means the line's end, as the protocol says.
func offsetOf(text string, pos protocol.Position) (int, error) {
	off := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", pos.Line+1, line+1)
		}
		off += i + 1
	}
	lineEnd := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	for units := uint32(0); units < pos.Character && off < lineEnd; {
		r, size := utf8.DecodeRuneInString(text[off:])
		off += size
		units += uint32(utf16Len(r))
	}
	return off, nil
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// utf16Column converts a 0-based byte offset within line to UTF-16 units.
func utf16Column(line string, byteOff int) uint32 {
	if byteOff > len(line) {
		byteOff = len(line)
	}
	n := 0
	for _, r := range line[:byteOff] {
		n += utf16Len(r)
	}
	return uint32(n)
}

func isTestFile(path string) bool { return strings.HasSuffix(path, "_test.go") }
