package blockassert

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

// drain reads its input to the end, like a library's consumer; on a nil channel it blocks
// forever, as range over a nil channel does, and the test asserts exactly that.
func drain(in <-chan int) (n int) {
	for range in {
		n++
	}
	return n
}

// expectBlock runs f in a synctest bubble and asserts that it blocks: synctest.Test panics
// "deadlock: ..." when every goroutine of the bubble is durably blocked.
func expectBlock(t *testing.T, f func()) {
	defer func() {
		r := recover()
		if r == nil || !strings.HasPrefix(fmt.Sprint(r), "deadlock:") {
			t.Errorf("expected f to block, got %v", r)
		}
	}()
	synctest.Test(t, func(t *testing.T) { f() })
}

func TestDrainNilBlocks(t *testing.T) {
	expectBlock(t, func() { drain(nil) })
}
