package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// Pos is a source position as the runtime records it: the file string of the trace and a line.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string { return p.File + ":" + strconv.Itoa(p.Line) }

// GoID is a logical goroutine id, stable across runs: "1" is the test goroutine, "0" the
// process's first goroutine, and "P.k" the k-th goroutine spawned by the goroutine P
// (see FORMAT.md). The empty GoID means the goroutine has no logical id.
type GoID string

// TestGoroutine is the logical id of the goroutine running the Test function.
const TestGoroutine GoID = "1"

// MainGoroutine is the logical id of the process's first goroutine.
const MainGoroutine GoID = "0"

// maxGoIDDepth bounds the number of components, so the runtime can keep ids in fixed arrays.
const maxGoIDDepth = 32

// Child returns the id of the k-th (1-based) goroutine spawned by g.
func (g GoID) Child(k int) GoID { return g + GoID("."+strconv.Itoa(k)) }

// Parent returns the id of the goroutine that spawned g, and false for a root (or the empty id).
func (g GoID) Parent() (GoID, bool) {
	i := strings.LastIndexByte(string(g), '.')
	if i < 0 {
		return "", false
	}
	return g[:i], true
}

// Validate reports whether g is well formed: "0" or "1" followed by at most 31 ".k" components
// with k >= 1, decimal without leading zeros.
func (g GoID) Validate() error {
	if g == "" {
		return errors.New("empty goroutine id")
	}
	// Scan without allocating: Marshal validates every op of long orders.
	comp, start := 0, 0
	for i := 0; i <= len(g); i++ {
		if i < len(g) && g[i] != '.' {
			continue
		}
		comp++
		if comp > maxGoIDDepth {
			return fmt.Errorf("goroutine id %q has more than %d components", g, maxGoIDDepth)
		}
		n, err := parseUint(string(g[start:i]))
		if err != nil {
			return fmt.Errorf("goroutine id %q: component %d: %v", g, comp, err)
		}
		if comp == 1 && n > 1 {
			return fmt.Errorf("goroutine id %q must start with 0 (main) or 1 (test goroutine)", g)
		}
		if comp > 1 && n == 0 {
			return fmt.Errorf("goroutine id %q: spawn numbers start at 1", g)
		}
		start = i + 1
	}
	return nil
}

// OpID names one operation across runs: the N-th (1-based) recorded operation of goroutine G at
// position Pos, which has kind Kind. Occurrences count every event of G at Pos except
// SelectCase, GoEnd and internal events, whatever their kind.
type OpID struct {
	G    GoID
	Kind trace.Kind
	Pos  Pos
	N    int
}

// IsZero reports whether id names no operation.
func (id OpID) IsZero() bool { return id == OpID{} }

func (id OpID) String() string {
	return fmt.Sprintf("%s %s %s #%d", id.G, id.Kind, id.Pos, id.N)
}

// Orderable reports whether operations of kind k wait their turn while an order is active,
// and so can be delayed or ordered by any schedule.
func Orderable(k trace.Kind) bool {
	switch k {
	case trace.KindChanSend, trace.KindChanRecv, trace.KindChanClose, trace.KindSelect,
		trace.KindLock, trace.KindUnlock, trace.KindTryLock, trace.KindRLock, trace.KindRUnlock, trace.KindTryRLock,
		trace.KindOnceDo, trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait,
		trace.KindCondWait, trace.KindCondSignal, trace.KindCondBroadcast,
		trace.KindTestUse, trace.KindTestEnd:
		return true
	}
	return false
}

// Atomic reports whether k is an atomic operation (AtomicLoad, AtomicStore, AtomicRMW).
func Atomic(k trace.Kind) bool {
	return k == trace.KindAtomicLoad || k == trace.KindAtomicStore || k == trace.KindAtomicRMW
}

// Nameable reports whether a delay or op line may name an operation of kind k: an orderable
// kind or an atomic. Atomics wait their turn only in an order that names one (FORMAT.md).
func Nameable(k trace.Kind) bool { return Orderable(k) || Atomic(k) }

// parseUint parses the format's <uint>: 0, or digits without a leading zero, below 2^31.
func parseUint(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty number")
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("number %q has a leading zero", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
		n = n*10 + int(c-'0')
		if n >= 1<<31 {
			return 0, fmt.Errorf("number %q is too large (limit 2^31-1)", s)
		}
	}
	return n, nil
}
