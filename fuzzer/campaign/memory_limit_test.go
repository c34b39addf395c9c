package campaign

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/goweave/goweave/analysis"
)

func TestLimitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	userLimit := os.Getenv("GOMEMLIMIT") != "" // then init kept it
	t.Setenv("GOMEMLIMIT", "")
	if got, want := debug.SetMemoryLimit(-1), analysis.DefaultMemoryBudget()+memoryHeadroom; got != want && !userLimit {
		t.Errorf("soft limit at start %d, want the default budget and headroom %d", got, want)
	}
	LimitMemory(2 << 30)
	if got := debug.SetMemoryLimit(-1); got != 2<<30+memoryHeadroom {
		t.Errorf("LimitMemory(2 GiB): soft limit %d", got)
	}
	LimitMemory(-1)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("LimitMemory(no bound): soft limit %d, want none", got)
	}
	t.Setenv("GOMEMLIMIT", "3GiB")
	LimitMemory(1 << 30)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, LimitMemory changed the limit to %d", got)
	}
}
