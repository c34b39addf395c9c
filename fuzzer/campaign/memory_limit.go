package campaign

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/goweave/goweave/analysis"
)

// A campaign's process decodes traces, analyzes them and derives schedules from them:
// large short-lived heaps. The Go collector lets the heap grow to twice what is live
// before it collects (GOGC=100), so a campaign whose analyses and schedules held 0.9 GB
// reached 1.8 GB of heap and 2.5 GB resident. A soft memory limit a little above what
// one analysis may hold makes it collect sooner when the heap nears that, and return the
// freed pages; past the limit it only collects more often (at most half the CPU), nothing
// fails. GOMEMLIMIT, when set, is the user's choice and is kept.

// memoryHeadroom is what the process holds beside one analysis: the campaign's state,
// the schedules derived from a run, buffers.
const memoryHeadroom = 256 << 20

func init() { LimitMemory(analysis.DefaultMemoryBudget()) }

// LimitMemory sets the process's soft memory limit for analyses of budget bytes (no
// bound: none), unless GOMEMLIMIT is set. A campaign or a goweave analyze given another
// budget (-analysis-memory) calls it again with that one.
func LimitMemory(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if budget <= 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	debug.SetMemoryLimit(budget + memoryHeadroom)
}
