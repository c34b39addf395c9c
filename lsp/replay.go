package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/goweave/goweave/fuzzer/replay"
)

// ReplayResponse is the result of goweave.replay.
type ReplayResponse struct {
	ID         string   `json:"id"`
	Reproduced bool     `json:"reproduced"`
	Status     string   `json:"status,omitempty"`
	Panic      string   `json:"panic,omitempty"`
	Blocked    []string `json:"blocked,omitempty"`
}

// commandReplay replays a finding's run with progress, tells the user whether the bug
// happened again (with the panic or the blocked goroutines seen), and marks a
// reproduced finding confirmed.
func (s *Server) commandReplay(ctx context.Context, args *ReplayArgs) (any, error) {
	sf, ok := s.findings.get(args.ID)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.replay: no finding %q (its package may have been fuzzed again since; use the new diagnostic)", args.ID)
	}
	// Its folder may have left the workspace since the campaign found it.
	if _, err := s.folderOf(sf.cfg.Dir); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "goweave.replay: %v", err)
	}
	return s.runDetached(ctx, "replay of "+args.ID, func() (any, error) {
		// Ends with the server, the user's cancel button (progress) or the request's
		// $/cancelRequest.
		rctx, cancel := context.WithCancel(s.ctx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		where := sf.Test
		if len(sf.places) > 0 && sf.places[0].valid {
			where = fmt.Sprintf("%s (%s:%d)", sf.Test, relDir(s, sf.places[0].path), sf.places[0].rng.Start.Line+1)
		}
		prog := s.beginProgress("replaying "+sf.Kind, where, cancel)
		res, err := s.engine.Replay(rctx, sf.cfg, sf.Finding)
		if err != nil {
			if rctx.Err() != nil {
				prog.end(protocol.MessageTypeInfo, "canceled")
				return nil, fmt.Errorf("replay of %s canceled", sf.ID)
			}
			prog.end(protocol.MessageTypeError, "failed: "+err.Error())
			return nil, fmt.Errorf("replay of %s: %w", sf.ID, err)
		}
		resp := ReplayResponse{ID: sf.ID, Reproduced: res.Reproduced, Status: res.Status, Panic: res.Panic, Blocked: res.Blocked}
		var msg strings.Builder
		typ := protocol.MessageTypeInfo
		if res.Reproduced {
			fmt.Fprintf(&msg, "confirmed: %s happened again in %s", sf.Kind, sf.Test)
			s.publishAll(s.findings.confirm(sf.ID))
		} else {
			typ = protocol.MessageTypeWarning
			fmt.Fprintf(&msg, "not reproduced: the replayed run of %s ended with status %q without %s", sf.Test, res.Status, sf.Kind)
		}
		if steer := replay.Steering(sf.Finding); len(steer) > 0 {
			fmt.Fprintf(&msg, "; steered: %s", strings.Join(steer, "; "))
		}
		if res.Panic != "" {
			fmt.Fprintf(&msg, "; panic: %s", res.Panic)
		}
		if len(res.Blocked) > 0 {
			fmt.Fprintf(&msg, "; blocked goroutines: %s", strings.Join(res.Blocked, "; "))
		}
		prog.end(typ, msg.String())
		if prog.token != "" {
			s.tell(typ, "replay of %s: %s", sf.ID, msg.String())
		}
		return resp, nil
	})
}
