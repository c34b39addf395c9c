package campaign

import (
	"errors"
	"fmt"
	"time"
)

// A test's first run is analyzed past the end of its share (without it the campaign knows
// nothing of the test), but not for ever: a run of millions of operations took minutes to
// analyze (puzpuzpuz/xsync's TestMapAtomicSnapshot at -time 45s: 1m3.6s past its budget,
// the campaign 99 s for one test). Its analysis may go on one more -time past the later of
// the share's end and the analysis's start, at least firstAnalysisFloor; then it is stopped,
// and the report says so (a warning in text, -json and the editor, and the test has no
// analyzed run: its bugs are unknown, not none).

// firstAnalysisFloor is the least time a first run's analysis gets past its share: a short
// -time must not cut the analysis of an ordinary run (a variable for tests).
var firstAnalysisFloor = 30 * time.Second

// firstAnalysisBound is how long a first run's analysis may go on past its share's end.
func (c *campaign) firstAnalysisBound() time.Duration {
	return max(c.cfg.TimePerTest, firstAnalysisFloor)
}

// errFirstCut is the TraceErr of a first run whose analysis reached its bound.
var errFirstCut = errors.New("the analysis of the test's first run was stopped at its bound")

// firstCut is errFirstCut with how long the analysis went on, past the share (late) and
// in all.
func firstCut(late time.Duration, began time.Time) error {
	return fmt.Errorf("%w, %s past its time budget, after %s of analysis", errFirstCut,
		shortDuration(late), shortDuration(time.Since(began)))
}
