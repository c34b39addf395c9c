// Package leak leaks two goroutines in every run: three senders on an unbuffered channel
// and one receive. The test returns only once both extra senders are blocked on their
// send (it watches the goroutine dump, no sleeping), so the leak is there at every exit
// however loaded the machine is.
package leak

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func first(n int) string {
	answers := make(chan string)
	for i := range n {
		go func() {
			answers <- "answer " + strconv.Itoa(i) // the leaked senders block here
		}()
	}
	return <-answers
}

func TestLeakedSenders(t *testing.T) {
	if got := first(3); got == "" {
		t.Error("empty answer")
	}
	for blockedSenders() < 2 {
		runtime.Gosched()
	}
}

// blockedSenders counts the goroutines blocked in a channel send.
func blockedSenders() int {
	buf := make([]byte, 1<<16)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "[chan send]:")
}
