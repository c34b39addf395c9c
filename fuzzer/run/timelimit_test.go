package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// A recording run stopped at its time limit answers the leak check: the process ends
// itself (SIGQUIT's dump in its output) with a trace that says so (META timelimit=1),
// well before the grace period would have it killed.
func TestTimeLimitLeakCheckAnswered(t *testing.T) {
	b := statusesBinary(t)
	tracePath := filepath.Join(t.TempDir(), "run.trace")
	const limit, grace = time.Second, time.Minute
	r, err := Test(context.Background(), b, "TestHang", Options{Timeout: limit, Grace: grace, Trace: tracePath})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusTimeout || r.Canceled || !strings.Contains(r.Output, "SIGQUIT") {
		t.Fatalf("status %s (canceled %v), want a timeout ended by the runtime's own SIGQUIT:\n%s", r.Status, r.Canceled, r.Output)
	}
	if r.Elapsed >= limit+grace {
		t.Errorf("run took %v: the process did not answer the leak check, goweave had to stop it", r.Elapsed)
	}
	tr, err := trace.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Meta["timelimit"] != "1" || tr.Meta["exit"] != "signal" {
		t.Errorf("META timelimit=%q exit=%q, want 1 and signal", tr.Meta["timelimit"], tr.Meta["exit"])
	}
}
