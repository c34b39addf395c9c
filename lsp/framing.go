package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds one message's declared size: a larger Content-Length is treated as a
// malformed header, not as a reason to allocate (a file in didOpen is far smaller).
const maxFrame = 256 << 20

// frameStream reads LSP frames (Content-Length header, blank line, JSON body) and survives
// what would end a jsonrpc2 header stream: a malformed header (missing, non-numeric or
// oversized Content-Length, a line that is not a header field) is logged and the stream
// resynchronises at the next "Content-Length:"; a body that is not JSON-RPC is answered
// with a parse error. Writes and Close go to jsonrpc2's header stream.
type frameStream struct {
	jsonrpc2.Stream // writes and closes
	in              *bufio.Reader
	warn            func(format string, args ...any)
}

func newFrameStream(rwc io.ReadWriteCloser, warn func(format string, args ...any)) *frameStream {
	return &frameStream{Stream: jsonrpc2.NewHeaderStream(rwc), in: bufio.NewReader(rwc), warn: warn}
}

// badHeader is a malformed frame header.
type badHeader struct{ why string }

func (b *badHeader) Error() string { return b.why }

func (f *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := f.readFrame()
		if bad := (*badHeader)(nil); errors.As(err, &bad) {
			skipped, err := f.resync()
			f.warn("malformed LSP frame header (%s): skipped %d bytes to the next Content-Length header", bad.why, skipped)
			if err != nil {
				return nil, n, err
			}
			continue
		}
		if err != nil {
			return nil, n, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		resp := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.Errorf(jsonrpc2.ParseError, "goweave: malformed message: %v", err))
		if _, werr := f.Stream.Write(ctx, resp); werr != nil {
			return nil, n, werr
		}
	}
}

// readFrame reads one header block and its body. The body is a fresh slice: requests keep
// parts of it beyond the next read.
func (f *frameStream) readFrame() ([]byte, int64, error) {
	var n int64
	length := -1
	for first := true; ; first = false {
		line, err := f.in.ReadString('\n')
		n += int64(len(line))
		if err != nil {
			if errors.Is(err, io.EOF) && first && line == "" {
				return nil, n, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, n, io.ErrUnexpectedEOF
			}
			return nil, n, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, n, &badHeader{fmt.Sprintf("%q is not a header field", clip(line))}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v <= 0 || v > maxFrame {
				return nil, n, &badHeader{fmt.Sprintf("Content-Length %q is not a size between 1 and %d", clip(strings.TrimSpace(value)), maxFrame)}
			}
			length = v
		}
	}
	if length < 0 {
		return nil, n, &badHeader{"no Content-Length"}
	}
	// Read what arrives rather than allocating the declared size up front.
	var body bytes.Buffer
	got, err := io.Copy(&body, io.LimitReader(f.in, int64(length)))
	n += got
	if err == nil && got < int64(length) {
		err = io.ErrUnexpectedEOF
	}
	return body.Bytes(), n, err
}

// resync discards input up to the next "Content-Length:" (which may follow the broken
// frame's body on the same line), leaving it to be read; it returns the bytes skipped.
func (f *frameStream) resync() (int64, error) {
	const header = "Content-Length:"
	var skipped int64
	for {
		b, err := f.in.Peek(len(header))
		if strings.EqualFold(string(b), header) {
			return skipped, nil
		}
		if err != nil {
			d, _ := f.in.Discard(len(b))
			return skipped + int64(d), err
		}
		_, _ = f.in.Discard(1)
		skipped++
	}
}

// clip shortens s for a log line.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
