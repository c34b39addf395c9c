package campaign

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// An inspection's reservation holds the pool: a second one that would pass the budget
// beside it waits until it is released.
func TestReserveInspect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.trace")
	// 10,000 events' worth of file: about 4 MB reserved, two do not fit in 5 MB
	if err := os.WriteFile(path, make([]byte, 10_000*trace.RecordSize), 0o644); err != nil {
		t.Fatal(err)
	}
	o := analysis.Options{MemoryBudget: 5 << 20}
	release := reserveInspect(path, o)
	done := make(chan bool)
	go func() {
		defer reserveInspect(path, o)()
		done <- true
	}()
	// it cannot finish while the first is held: give it every chance to (a reservation of
	// nothing would let it through at once), which never fails a correct pool
	for range 1000 {
		runtime.Gosched()
	}
	select {
	case <-done:
		t.Fatalf("a second inspection passing the budget beside the first did not wait")
	default:
	}
	release()
	<-done
	reserveInspect(filepath.Join(t.TempDir(), "missing"), o)() // no file: nothing reserved
}
