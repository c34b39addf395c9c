package trace

import (
	"fmt"
	"time"
)

// Event is one recorded operation. SelectCase records are folded into their Select event
// (Cases); every other record is one Event.
type Event struct {
	Index int // position in Trace.Events
	Kind  Kind
	Flags Flags
	Aux   uint16
	Pos   uint32 // position id, see Trace.Position
	G     uint64 // goid of the goroutine that performed it
	Obj   uint64 // object id (0 = none / nil channel)
	Pre   uint64 // global stamp when requested
	Post  uint64 // global stamp when completed; 0 = never completed
	A     uint64 // kind-specific, see FORMAT.md
	B     uint64
	C     uint64
	Cases []Case // Select only, in the runtime's order: send cases first (FORMAT.md, "Select case order")
}

// Completed reports whether the operation finished before the trace was written.
func (e *Event) Completed() bool { return e.Post != 0 }

// SelectDefault is the chosen-case value (Event.A) of a select that took its default case
// or did not complete.
const SelectDefault = ^uint64(0)

// Case is one case of a select.
type Case struct {
	Index     int    // case index in the runtime's order (package analysis/selectcase maps it to the source)
	Obj       uint64 // channel (0 = nil channel)
	Send      bool   // a send case; otherwise a receive
	ValueUsed bool   // a receive case whose value is stored
	Ready     bool   // the case could proceed when the select looked (SelectCase b = 1): Go chooses among ready cases at random
}

// Position is a source position of the recorded program.
type Position struct {
	File   string
	Line   int
	Column int // 0 = unknown
	Func   string
}

func (p Position) String() string {
	if p.File == "" {
		return "?"
	}
	if p.Column > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Goroutine is the state of a goroutine that was alive when the trace was written.
type Goroutine struct {
	ID         uint64
	Status     uint32 // runtime status: 1 runnable, 2 running, 3 syscall, 4 waiting, ...
	WaitReason string
	LastEvent  int    // index in Trace.Events of its newest event; -1 = none
	Parent     uint64 // goid; 0 = unknown
}

// Trace is one decoded trace file.
type Trace struct {
	Meta       map[string]string
	Events     []Event
	Positions  []Position // position id i is Positions[i-1]
	Goroutines []Goroutine
	Timed      []Timed // timing records, in record order (not operations: never in Events)
	// Cut counts the records ReadFilePrefix left out past its limit (0: the whole trace).
	// Like the events the recorder dropped, they are counted in META "dropped" too.
	Cut uint64
}

// Timed is a timing record (FORMAT.md): how long the schedule held a goroutine before an
// operation (KindHold), or a wait bounded by wall-clock time that a goroutine started
// (KindTimedWait: a time.Sleep or a timer). Start and Dur are the process's monotonic
// clock, comparable between the records of one trace only.
type Timed struct {
	Kind  Kind   // KindHold or KindTimedWait
	Aux   uint16 // Hold: the held operation's Kind; TimedWait: WaitSleep, WaitTimerChan, WaitTimerFunc or WaitTicker
	Pos   uint32 // Hold: the held operation's position; TimedWait: the Sleep's or the timer's creation
	G     uint64 // the held goroutine; the goroutine that slept or created the timer
	Obj   uint64 // TimedWait of a timer: its object id (its channel's, for NewTimer and After)
	Stamp uint64 // global stamp when the record was written (the hold's end, the wait's start)
	Start int64  // monotonic nanoseconds when the hold or the wait began
	Dur   time.Duration
}

// What a TimedWait waits with (Timed.Aux).
const (
	WaitSleep     = 0 // time.Sleep
	WaitTimerChan = 1 // a timer with a channel: time.NewTimer, time.After
	WaitTimerFunc = 2 // a timer with a function: time.AfterFunc, a context's deadline
	WaitTicker    = 3 // a ticker (no deadline: Obj is its channel, Dur its period, End its first tick)
)

// End is when the hold ended or the wait expires.
func (t Timed) End() int64 { return t.Start + int64(t.Dur) }

// Position returns the position with the given id; the zero Position for 0 or an unknown id.
func (t *Trace) Position(id uint32) Position {
	if id == 0 || int(id) > len(t.Positions) {
		return Position{}
	}
	return t.Positions[id-1]
}
