package lsp

import (
	"context"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
)

// progressTokens maps the tokens of running work to the functions that cancel it.
type progressTokens struct {
	mu      sync.Mutex
	next    int
	cancels map[string]func()
}

func newProgressTokens() *progressTokens {
	return &progressTokens{cancels: map[string]func(){}}
}

// A progress reports one piece of long work (a campaign, a replay) to the client:
// with $/progress when the client supports work done progress, else with
// window/showMessage at its start and end.
type progress struct {
	s     *Server
	token string // "" when falling back to showMessage
	title string
}

// beginProgress starts reporting work titled title; cancel is called when the user
// cancels it in the client.
func (s *Server) beginProgress(title, message string, cancel func()) *progress {
	p := &progress{s: s, title: title}
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported {
		s.tell(protocol.MessageTypeInfo, "%s: %s", title, message)
		return p
	}
	t := s.progress
	t.mu.Lock()
	t.next++
	token := fmt.Sprintf("goweave-%d", t.next)
	t.mu.Unlock()
	if err := s.client.WorkDoneProgressCreate(s.ctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)}); err != nil {
		s.log.Warn("window/workDoneProgress/create failed; falling back to showMessage", "err", err)
		s.tell(protocol.MessageTypeInfo, "%s: %s", title, message)
		return p
	}
	t.mu.Lock()
	t.cancels[token] = cancel
	t.mu.Unlock()
	p.token = token
	yes := true
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes, Message: &message})
	return p
}

// report updates the message and, when percent >= 0, the percentage.
func (p *progress) report(message string, percent int) {
	if p.token == "" {
		return
	}
	r := &protocol.WorkDoneProgressReport{Kind: "report", Message: &message}
	if percent >= 0 {
		pct := uint32(min(percent, 100))
		r.Percentage = &pct
	}
	p.send(r)
}

// end finishes the report with message ("completed", "failed: ...", "canceled").
func (p *progress) end(typ protocol.MessageType, message string) {
	if p.token == "" {
		p.s.tell(typ, "%s: %s", p.title, message)
		return
	}
	t := p.s.progress
	t.mu.Lock()
	delete(t.cancels, p.token)
	t.mu.Unlock()
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
	if typ == protocol.MessageTypeError {
		// Failures must be seen even when the client hides finished progress.
		p.s.tell(typ, "%s: %s", p.title, message)
	}
}

func (p *progress) send(value any) {
	b, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Error("encoding progress", "err", err)
		return
	}
	if err := p.s.client.Progress(p.s.ctx, &protocol.ProgressParams{Token: protocol.String(p.token), Value: b}); err != nil {
		p.s.log.Warn("$/progress failed", "err", err)
	}
}

// WorkDoneProgressCancel implements window/workDoneProgress/cancel.
func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	token := fmt.Sprint(params.Token)
	t := s.progress
	t.mu.Lock()
	cancel := t.cancels[token]
	t.mu.Unlock()
	if cancel == nil {
		return fmt.Errorf("window/workDoneProgress/cancel: no running work with token %v", params.Token)
	}
	cancel()
	return nil
}
