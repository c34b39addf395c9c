package trace

import "strconv"

// Kind is the operation an event records. Values are fixed by FORMAT.md.
type Kind uint8

const (
	KindGoSpawn         Kind = 1
	KindGoEnd           Kind = 2
	KindChanMake        Kind = 3
	KindChanSend        Kind = 4
	KindChanRecv        Kind = 5
	KindChanClose       Kind = 6
	KindSelect          Kind = 7
	KindSelectCase      Kind = 8
	KindLock            Kind = 10
	KindUnlock          Kind = 11
	KindTryLock         Kind = 12
	KindRLock           Kind = 13
	KindRUnlock         Kind = 14
	KindTryRLock        Kind = 15
	KindOnceDo          Kind = 20
	KindWgAdd           Kind = 30
	KindWgDone          Kind = 31
	KindWgWait          Kind = 32
	KindCondWait        Kind = 40
	KindCondSignal      Kind = 41
	KindCondBroadcast   Kind = 42
	KindAtomicLoad      Kind = 50
	KindAtomicStore     Kind = 51
	KindAtomicRMW       Kind = 52
	KindTimerFire       Kind = 60
	KindTimerSet        Kind = 61
	KindTestUse         Kind = 70
	KindTestEnd         Kind = 71
	KindHold            Kind = 80 // a timing record (Trace.Timed), never an Event
	KindTimedWait       Kind = 81 // a timing record (Trace.Timed), never an Event
	kindNamesUpperBound      = 82
)

var kindNames = [kindNamesUpperBound]string{
	KindGoSpawn:       "GoSpawn",
	KindGoEnd:         "GoEnd",
	KindChanMake:      "ChanMake",
	KindChanSend:      "ChanSend",
	KindChanRecv:      "ChanRecv",
	KindChanClose:     "ChanClose",
	KindSelect:        "Select",
	KindSelectCase:    "SelectCase",
	KindLock:          "Lock",
	KindUnlock:        "Unlock",
	KindTryLock:       "TryLock",
	KindRLock:         "RLock",
	KindRUnlock:       "RUnlock",
	KindTryRLock:      "TryRLock",
	KindOnceDo:        "OnceDo",
	KindWgAdd:         "WgAdd",
	KindWgDone:        "WgDone",
	KindWgWait:        "WgWait",
	KindCondWait:      "CondWait",
	KindCondSignal:    "CondSignal",
	KindCondBroadcast: "CondBroadcast",
	KindAtomicLoad:    "AtomicLoad",
	KindAtomicStore:   "AtomicStore",
	KindAtomicRMW:     "AtomicRMW",
	KindTimerFire:     "TimerFire",
	KindTimerSet:      "TimerSet",
	KindTestUse:       "TestUse",
	KindTestEnd:       "TestEnd",
	KindHold:          "Hold",
	KindTimedWait:     "TimedWait",
}

// Known reports whether k is a kind of format version 1 (kinds are only ever added).
func (k Kind) Known() bool { return k < kindNamesUpperBound && kindNames[k] != "" }

func (k Kind) String() string {
	if k.Known() {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Flags is the flag bit set of an event.
type Flags uint8

const (
	FlagClosed      Flags = 0x01 // recv saw a closed channel; send/close on an already closed channel
	FlagNilChan     Flags = 0x02 // operation on a nil channel
	FlagNonBlocking Flags = 0x04 // non-blocking attempt (select with default, TryLock)
	FlagValueUsed   Flags = 0x08 // the received value is stored; on an atomic event, B holds the word it read or replaced
	FlagCommaOK     Flags = 0x10 // v, ok := <-c or for range c
	FlagSuccess     Flags = 0x20 // TryLock acquired, Once.Do ran f, select/non-blocking op communicated
	FlagRW          Flags = 0x40 // the mutex operation is on an RWMutex
	FlagInternal    Flags = 0x80 // performed by the standard library on behalf of the user call at pos
)

var flagNames = [8]string{"closed", "nilchan", "nonblocking", "valueused", "commaok", "success", "rw", "internal"}

// Has reports whether every bit of f2 is set in f.
func (f Flags) Has(f2 Flags) bool { return f&f2 == f2 }

func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	s := ""
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}
