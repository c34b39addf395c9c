package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Cancellation: $/cancelRequest cancels the context of the request it names. jsonrpc2's
// own CancelHandler derives a context from the request context, which the connection
// recycles as soon as the handler returns (a derived context's watcher then reads a
// recycled request: a data race and a nil-parent panic), so the server keeps its own
// context per call, derived from the server's, and hands handlers a context whose
// cancellation is that one while its values (jsonrpc2's release token for Async) still come
// from the request.

// inflight maps the ids of the calls being handled to their cancel functions.
type inflight struct {
	mu     sync.Mutex
	cancel map[jsonrpc2.ID]context.CancelFunc
}

// begin returns the context for the call id and a function to call when it is answered.
func (f *inflight) begin(parent, req context.Context, id jsonrpc2.ID) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	f.mu.Lock()
	if f.cancel == nil {
		f.cancel = map[jsonrpc2.ID]context.CancelFunc{}
	}
	f.cancel[id] = cancel
	f.mu.Unlock()
	return requestContext{Context: ctx, req: req}, func() {
		f.mu.Lock()
		delete(f.cancel, id)
		f.mu.Unlock()
		cancel()
	}
}

// cancelCall handles $/cancelRequest; unknown or finished ids are ignored, as LSP asks.
func (f *inflight) cancelCall(raw []byte) {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return
	}
	var id jsonrpc2.ID
	switch v := p.ID.(type) {
	case protocol.Integer:
		id = jsonrpc2.NewNumberID(int64(v))
	case protocol.String:
		id = jsonrpc2.NewStringID(string(v))
	default:
		return
	}
	f.mu.Lock()
	cancel := f.cancel[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// requestContext is the server's own cancellable context for a call, with the values of
// the jsonrpc2 request context behind its own: context.WithCancel and AfterFunc find the
// server's cancelCtx first and never start a goroutine watching the request context.
type requestContext struct {
	context.Context
	req context.Context
}

func (c requestContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
}

func (c requestContext) Deadline() (time.Time, bool) { return c.Context.Deadline() }
