package fuzzer

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/trace"
)

// analyzeTrace runs the happens-before analysis over one trace. A variable so that tests
// can stand in for the analysis.
var analyzeTrace = func(tr *trace.Trace) (res *analysis.Result, err error) {
	// A trace the reader accepted can still hold combinations the analysis did not expect;
	// one bad run must not take the campaign down.
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("analysis failed on this trace: %v", p)
		}
	}()
	return analysis.Analyze(tr), nil
}

// signature hashes the completion order of the operations of a trace by kind, position
// and outcome. Goroutine and object ids differ between runs, positions do not, so two runs
// with the same signature took the same interleaving as far as the recorder can tell.
func signature(tr *trace.Trace) string {
	done := make([]*trace.Event, 0, len(tr.Events))
	for i := range tr.Events {
		if tr.Events[i].Completed() {
			done = append(done, &tr.Events[i])
		}
	}
	slices.SortFunc(done, func(a, b *trace.Event) int { return cmp.Compare(a.Post, b.Post) })
	h := sha256.New()
	var rec [24]byte
	for _, e := range done {
		chosen := uint64(0)
		if e.Kind == trace.KindSelect {
			chosen = e.A
		}
		// Position ids are assigned per run: hash the position itself.
		p := tr.Position(e.Pos)
		h.Write([]byte(p.File))
		rec[0], rec[1] = byte(e.Kind), byte(e.Flags)
		binary.LittleEndian.PutUint64(rec[8:], uint64(p.Line)<<20|uint64(p.Column))
		binary.LittleEndian.PutUint64(rec[16:], chosen)
		h.Write(rec[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
