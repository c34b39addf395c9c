package schedule

import (
	"fmt"
	"time"
)

// Version is the schedule file format version this package writes and reads.
const Version = 1

// Env is the environment variable through which the runtime learns the schedule file's path.
const Env = "GOWEAVE_SCHEDULE"

// Preferred-case values of a SelectPreference besides case indexes (as the trace
// records them: FORMAT.md).
const (
	CaseDefault = -1 // take the default case at once
	CaseFree    = -2 // no preference for this execution
)

// Schedule is the instructions for one run. Every part is optional; the zero Schedule is a free
// run.
type Schedule struct {
	Selects []SelectPreference // at most one per position
	Delays  []Delay
	Order   *Order
}

// SelectPreference makes the select statement at Pos prefer, on its i-th execution (all
// goroutines together), case Cases[i-1] for up to Window before it falls back to a normal select.
type SelectPreference struct {
	Pos    Pos
	Window time.Duration
	Cases  []int // case index as the trace records it, CaseDefault or CaseFree
}

// Delay holds Op back until Until has been admitted or Window has passed.
type Delay struct {
	Op     OpID
	Until  OpID
	Window time.Duration
}

// Order admits Ops one after the other; any other orderable operation (and any atomic, when
// Ops names one: PinsAtomics) waits its turn. The
// order ends after the last op (the rest of the run is free) or when the next op has not
// arrived within Window of the previous admission (a divergence).
type Order struct {
	Window time.Duration
	Ops    []OpID
}

// PinsAtomics reports whether o names an atomic operation: then every atomic operation waits
// its turn while o is active, as the orderable kinds always do.
func (o *Order) PinsAtomics() bool {
	if o == nil {
		return false
	}
	for _, op := range o.Ops {
		if Atomic(op.Kind) {
			return true
		}
	}
	return false
}

// IsFree reports whether s steers nothing.
func (s *Schedule) IsFree() bool {
	return s == nil || len(s.Selects) == 0 && len(s.Delays) == 0 && (s.Order == nil || len(s.Order.Ops) == 0)
}

// Limits of the format (FORMAT.md), so the runtime parser can use fixed bounds.
const (
	maxFiles       = 4096
	maxPathLen     = 4096
	maxSelectCases = 65536
	maxOps         = 1 << 20
	maxFileSize    = 16 << 20
	maxUint        = 1<<31 - 1
)

// Validate reports the first reason s cannot be encoded.
func (s *Schedule) Validate() error {
	seen := make(map[Pos]bool)
	for i, sp := range s.Selects {
		if err := validPos(sp.Pos); err != nil {
			return fmt.Errorf("select %d: %v", i+1, err)
		}
		if seen[sp.Pos] {
			return fmt.Errorf("select %d: second preference list for %s", i+1, sp.Pos)
		}
		seen[sp.Pos] = true
		if err := validWindow(sp.Window); err != nil {
			return fmt.Errorf("select %d at %s: %v", i+1, sp.Pos, err)
		}
		if len(sp.Cases) == 0 || len(sp.Cases) > maxSelectCases {
			return fmt.Errorf("select %d at %s: %d preferred cases (want 1 to %d)", i+1, sp.Pos, len(sp.Cases), maxSelectCases)
		}
		for _, c := range sp.Cases {
			if c < CaseFree || c > maxUint {
				return fmt.Errorf("select %d at %s: invalid case %d", i+1, sp.Pos, c)
			}
		}
	}
	for i, d := range s.Delays {
		if err := validOp(d.Op); err != nil {
			return fmt.Errorf("delay %d: %v", i+1, err)
		}
		if err := validOp(d.Until); err != nil {
			return fmt.Errorf("delay %d: until: %v", i+1, err)
		}
		if err := validWindow(d.Window); err != nil {
			return fmt.Errorf("delay %d: %v", i+1, err)
		}
	}
	if s.Order != nil {
		if err := validWindow(s.Order.Window); err != nil {
			return fmt.Errorf("order: %v", err)
		}
		if len(s.Order.Ops) == 0 {
			return fmt.Errorf("order without ops")
		}
		if len(s.Order.Ops) > maxOps {
			return fmt.Errorf("order has %d ops, at most %d allowed", len(s.Order.Ops), maxOps)
		}
		for i, op := range s.Order.Ops {
			if err := validOp(op); err != nil {
				return fmt.Errorf("order op %d: %v", i+1, err)
			}
		}
	}
	return nil
}

func validPos(p Pos) error {
	if p.File == "" {
		return fmt.Errorf("position %s has no file", p)
	}
	if len(p.File) > maxPathLen {
		return fmt.Errorf("file name of %d bytes, at most %d allowed", len(p.File), maxPathLen)
	}
	for i := 0; i < len(p.File); i++ {
		if p.File[i] == '\n' || p.File[i] == '\r' {
			return fmt.Errorf("file name %q contains a line break", p.File)
		}
	}
	if p.Line < 1 || p.Line > maxUint {
		return fmt.Errorf("position %s: line out of range", p)
	}
	return nil
}

func validOp(op OpID) error {
	if err := op.G.Validate(); err != nil {
		return err
	}
	if !Nameable(op.Kind) {
		return fmt.Errorf("%s operations cannot be scheduled", op.Kind)
	}
	if err := validPos(op.Pos); err != nil {
		return err
	}
	if op.N < 1 || op.N > maxUint {
		return fmt.Errorf("occurrence %d out of range (1-based)", op.N)
	}
	return nil
}

func validWindow(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("negative window %v", d)
	}
	if ms := windowMillis(d); ms > maxUint {
		return fmt.Errorf("window %v too long", d)
	}
	return nil
}

// windowMillis rounds d up to whole milliseconds: a sub-millisecond window must not become 0.
func windowMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
