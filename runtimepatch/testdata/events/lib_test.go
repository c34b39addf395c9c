package events

import (
	"context"
	"io"
	"sync"
	"testing"
)

// TestLibContext: a context's Done channel is made and closed inside package
// context; both are recorded, attributed to the user's calls and flagged
// internal, so a goroutine waiting on ctx.Done() has its partner. The
// receive is the user's own operation.
func TestLibContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := ctx.Done() // @lib.make (made now: a Done called after the cancel returns a shared closed channel)
	woke := make(chan struct{})
	go func() {
		<-done // @lib.done
		close(woke)
	}()
	cancel() // @lib.cancel
	<-woke
	t.Log("logged through testing's own locks, which are not recorded")
}

// TestLibPipe: io.Pipe synchronises a Write with the Read that takes its
// bytes through a mutex and channels of package io, recorded at the user's
// Read and Write calls.
func TestLibPipe(t *testing.T) {
	r, w := io.Pipe()
	var wg sync.WaitGroup
	wg.Go(func() {
		w.Write([]byte("x")) // @lib.write
		w.Close()
	})
	buf := make([]byte, 1)
	r.Read(buf) // @lib.read
	wg.Wait()
}
