// Package mostlyfails holds a test whose failure depends on the schedule and whose first
// runs all fail: the bad luck that made goweave call a flaky test broken, made certain so
// the test of the rule cannot pass or fail by the draw. Each run takes the next number from
// $MOSTLYFAILS_DIR (a file per run); the first twelve fail, as a test failing in most runs
// sometimes does in all of a campaign's first runs, and every later run, goweave's or plain go
// test's, fails unless a select among two ready cases takes the first: in half of them.
// Without MOSTLYFAILS_DIR only the select decides. It is flaky, not broken.
package mostlyfails

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// firstFailing runs fail: more than the eight that make a campaign suspect a broken test,
// since with runs in parallel the ninth may end before the eighth.
const firstFailing = 12

// runNumber claims the next free number in dir.
func runNumber(dir string) int {
	for n := 0; ; n++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(n)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return n
		}
		if !os.IsExist(err) {
			return -1
		}
	}
}

// first says which of two workers finished first, as a select among their done channels
// sees it once both have.
func first() int {
	done := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var wg sync.WaitGroup
	for i := range done {
		wg.Add(1)
		go func() {
			defer wg.Done()
			close(done[i])
		}()
	}
	wg.Wait()
	select {
	case <-done[0]:
		return 0
	case <-done[1]:
		return 1
	}
}

func TestFirstWorker(t *testing.T) {
	got := first()
	if dir := os.Getenv("MOSTLYFAILS_DIR"); dir != "" {
		if n := runNumber(dir); n >= 0 && n < firstFailing {
			got = 1 // the draw went against the test
		}
	}
	if got != 0 {
		t.Fatalf("worker %d finished first, want worker 0", got)
	}
}
