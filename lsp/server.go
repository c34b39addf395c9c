package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Server is goweave's language server. One Server serves one client connection.
type Server struct {
	protocol.UnimplementedServer

	engine Engine
	client protocol.Client
	log    *slog.Logger

	// ctx lives as long as the connection; campaigns and replays derive from it.
	ctx    context.Context
	cancel context.CancelFunc
	// work counts goroutines started by the server (campaigns, replays, reports) so
	// that shutdown and Serve can wait for every one of them and their processes.
	work sync.WaitGroup

	exited chan struct{} // closed by the exit notification
	exitMu sync.Once

	mu        sync.Mutex
	state     serverState
	closing   bool // set once; no background work starts after it
	caps      clientCaps
	folders   []string // workspace folders (none until initialize); see workspace.go
	settings  Settings
	docs      map[uri.URI]*document
	campaigns *campaigns
	findings  *findingStore
	progress  *progressTokens
	last      lastCampaigns // findings of the last campaigns, restored at open (lastcampaign.go)
	inflight  inflight      // calls being handled, for $/cancelRequest
	timelines string        // directory for timeline pages; "" means the user cache
}

type serverState int

const (
	stateCreated serverState = iota
	stateInitializing
	stateInitialized
	stateShutdown
)

// Option configures a Server.
type Option func(*Server)

// WithLogger sends the server's log lines to l as well as to the client's
// window/logMessage.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// newServer creates a server; serve connects it to a client.
func newServer(ctx context.Context, engine Engine, opts ...Option) *Server {
	s := &Server{
		engine:   engine,
		log:      slog.New(slog.DiscardHandler),
		exited:   make(chan struct{}),
		settings: DefaultSettings(),
		docs:     map[uri.URI]*document{},
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.campaigns = newCampaigns(s)
	s.findings = newFindingStore()
	s.progress = newProgressTokens()
	for _, o := range opts {
		o(s)
	}
	return s
}

// Serve runs the language server over rwc (stdin/stdout for `goweave serve`) until the
// client sends exit, the stream ends, or ctx is cancelled. Before returning it stops
// every campaign and waits for its test processes to end.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, engine Engine, opts ...Option) error {
	return newServer(ctx, engine, opts...).serve(ctx, rwc)
}

func (s *Server) serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	stream := newFrameStream(rwc, func(format string, args ...any) { s.logf(protocol.MessageTypeWarning, format, args...) })
	conn := jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspCodec{}))
	s.client = protocol.ClientDispatcher(conn)
	// Not s.ctx: cancelling campaigns at shutdown must not close the connection.
	conn.Go(protocol.WithClient(ctx, s.client), s.handler())

	var err error
	select {
	case <-s.exited:
	case <-conn.Done():
		err = conn.Err()
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.stopEverything()
	s.work.Wait()
	closed := make(chan struct{})
	go func() {
		_ = conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Second):
		// Close waits for the read loop, and a read blocked on a stdin pipe is not
		// interrupted by closing it; the process is about to exit anyway.
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	return nil
}

// handler wraps the protocol dispatch so that no message can stop the server: requests
// before initialize or after shutdown get the LSP errors, a handler panic is logged and
// answered with an internal error, and a failing notification (which jsonrpc2 would
// treat as fatal for the connection) is logged instead.
func (s *Server) handler() jsonrpc2.Handler {
	dispatch := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := strings.Clone(req.Method())
		isCall := req.IsCall()
		if method == protocol.MethodCancelRequest {
			// Long requests (replay) stop their work and answer RequestCancelled.
			s.inflight.cancelCall(req.Params())
			return nil, nil
		}
		if gateErr := s.gate(method); gateErr != nil {
			if isCall {
				return nil, gateErr
			}
			if method != protocol.MethodExit {
				s.log.Warn("notification ignored", "method", method, "reason", gateErr)
				return nil, nil
			}
		}
		defer func() {
			if r := recover(); r != nil {
				s.logf(protocol.MessageTypeError, "internal error handling %s: %v", method, r)
				result = nil
				err = nil
				if isCall {
					err = jsonrpc2.Errorf(jsonrpc2.InternalError, "goweave: internal error handling %s: %v", method, r)
				}
			}
		}()
		if isCall {
			var done func()
			ctx, done = s.inflight.begin(s.ctx, ctx, req.ID())
			defer done()
		}
		result, err = dispatch(ctx, req)
		if err != nil && isCall && ctx.Err() != nil {
			// The client cancelled the request (or the connection is ending).
			return nil, jsonrpc2.NewError(jsonrpc2.Code(protocol.LSPErrorCodesRequestCancelled), "goweave: "+method+" canceled")
		}
		if err != nil && !isCall {
			s.logf(protocol.MessageTypeWarning, "%s: %v", method, err)
			return nil, nil
		}
		return result, err
	}
}

// gate applies the lifecycle rules of the protocol to an incoming message.
func (s *Server) gate(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case stateCreated:
		if method == protocol.MethodInitialize || method == protocol.MethodExit {
			return nil
		}
		return jsonrpc2.NewError(codeServerNotInitialized, "goweave: the server is not initialized yet (send initialize first)")
	case stateShutdown:
		if method == protocol.MethodExit {
			return nil
		}
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "goweave: the server is shut down (send exit)")
	}
	if method == protocol.MethodInitialize {
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "goweave: initialize was already sent")
	}
	return nil
}

// codeServerNotInitialized is the LSP error code for requests before initialize.
const codeServerNotInitialized jsonrpc2.Code = -32002

// logf logs a line to the server log and to the client (window/logMessage).
func (s *Server) logf(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	switch typ {
	case protocol.MessageTypeError:
		s.log.Error(msg)
	case protocol.MessageTypeWarning:
		s.log.Warn(msg)
	default:
		s.log.Info(msg)
	}
	_ = s.client.LogMessage(s.ctx, &protocol.LogMessageParams{Type: typ, Message: "goweave: " + msg})
}

// tell shows msg to the user (window/showMessage) and logs it.
func (s *Server) tell(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.logf(typ, "%s", msg)
	_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: typ, Message: "goweave: " + msg})
}

// goBackground runs f on its own goroutine, counted for shutdown; a panic in f is
// reported to the user instead of killing the server.
// It returns false, running nothing, once the server is shutting down.
func (s *Server) goBackground(what string, f func()) bool {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return false
	}
	s.work.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.work.Done()
		defer func() {
			if r := recover(); r != nil {
				s.tell(protocol.MessageTypeError, "%s crashed: %v (please report this bug)", what, r)
			}
		}()
		f()
	}()
	return true
}

// stopEverything cancels every campaign and replay; their processes are killed by the
// engine when their context ends.
func (s *Server) stopEverything() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.campaigns.stopAll()
	s.cancel()
}

// lspCodec marshals payloads with the protocol package's union-aware encoder.
type lspCodec struct{}

func (lspCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case protocol.LSPAny:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (lspCodec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
