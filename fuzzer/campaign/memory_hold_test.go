package campaign

import (
	"runtime"
	"testing"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/fuzzer/build"
	"github.com/goweave/goweave/fuzzer/run"
)

// A run's inspection keeps its share of the analyses' pool until the campaign drops the
// run, not until the inspection returns: another large inspection waits while the first
// run's trace and analysis are still held (the campaign derives its schedules from them).
func TestInspectionHeldUntilDropped(t *testing.T) {
	path, events := poolTrace(t, 200)
	budget := int64(events) * (analysis.BytesPerEvent + signatureBytesPerEvent) * 3 / 2 // one fits, two do not
	bin := &build.TestBinary{Package: "p", Dir: t.TempDir()}
	ar := inspect(bin, "T", 1, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget, nil, analyzeTrace)
	if ar.TraceErr != nil || ar.Analysis == nil || ar.Recorded == nil {
		t.Fatalf("the run was not analyzed within %d bytes: %v", budget, ar.TraceErr)
	}
	// Another inspection of the same size reserves as much: it has to wait.
	reserved := make(chan func())
	go func() {
		reserved <- analysis.Reserve(int64(events)*(analysis.BytesPerEvent+signatureBytesPerEvent), analysis.Options{MemoryBudget: budget})
	}()
	for range 1000 { // every chance to pass the first one, which a correct pool never lets it
		runtime.Gosched()
	}
	select {
	case release := <-reserved:
		release()
		t.Fatal("another inspection's reservation went through while the first run's trace and analysis were still held")
	default:
	}
	(jobResult{run: ar}).drop()
	if ar.Recorded != nil || ar.Analysis != nil {
		t.Error("the dropped run still holds its trace or analysis")
	}
	(<-reserved)()
	second := inspect(bin, "T", 2, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget, nil, analyzeTrace)
	if second.Analysis == nil {
		t.Fatalf("the second inspection, after the first was dropped: %v", second.TraceErr)
	}
	second.dropTrace()
	second.dropTrace() // idempotent: the pool is not released twice
	// Inspect's callers keep the run as long as they like: it holds nothing of the pool.
	third := Inspect(bin, "T", 3, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget)
	fourth := Inspect(bin, "T", 4, nil, &run.Run{Trace: path, Status: run.StatusPass}, true, budget)
	if third.Analysis == nil || fourth.Analysis == nil {
		t.Fatalf("Inspect held the pool: %v, %v", third.TraceErr, fourth.TraceErr)
	}
}
