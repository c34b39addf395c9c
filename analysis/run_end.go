package analysis

import (
	"strconv"
	"strings"
)

// How the recorded process ended (META exit and message), and what that proves about the
// goroutines still blocked then.
//
// A stuck verdict needs evidence that the run was stuck: the runtime's own check (META
// exit=deadlock, or a fatal error with its words), goweave's stuck check or time limit
// (the process ended by the signal they send, META stuck= or timelimit=1: the supervisor
// stops a run at its limit only once its progress record stopped changing), or testing's
// -timeout alarm. A process that died of anything else (a panic, a fatal error, os.Exit, a
// t.Fatal) says nothing about its blocked goroutines: code that would have woken them (a
// deferred Close, a runnable goroutine) never got to run. Survey 7's amqp091-go run ended
// by a test's "send deadlock" t.Fatalf on a timer goroutine after its test had completed,
// and the words in the panic's message made it a stuck run.
type runEnd int

const (
	endNormal runEnd = iota // returned or os.Exit: goroutines still blocked leaked
	endStuck                // the runtime's deadlock check, goweave's stuck check or time limit, a test timeout
	endCrash                // another panic or fatal error: blocked goroutines were cut short
)

// Messages of the process's end that are verdicts that it was stuck: the runtime's
// checkdead (proc.go) and testing's -timeout alarm (testing.go), whose message starts with
// the prefix. Nothing else a program panics with is (it may quote the words).
var (
	runtimeDeadlockMessages = []string{
		"all goroutines are asleep - deadlock!",
		"no goroutines (main called runtime.Goexit) - deadlock!",
	}
	testTimeoutPrefix = "test timed out after "
)

func (r *Result) end() runEnd {
	m := r.Trace.Meta
	switch m["exit"] {
	case "", "exit":
		return endNormal
	case "deadlock", "signal":
		return endStuck
	case "fatal":
		for _, s := range runtimeDeadlockMessages {
			if strings.HasPrefix(m["message"], s) {
				return endStuck
			}
		}
	case "panic":
		if strings.HasPrefix(m["message"], testTimeoutPrefix) {
			return endStuck
		}
	}
	return endCrash
}

// crashDeadlocks reports the lock cycles among the goroutines blocked when a run crashed
// (endCrash), as one stuck state each, and nothing else: only a holder unlocks its mutex,
// so goroutines each waiting for a mutex the next one holds could never have proceeded
// however the run had gone on (the proof timeLimitDeadlocks uses for a slow run). Every
// other blocked goroutine could have been woken by code the crash cut short, and no leak
// detection ran at the crash, so none of them is a deadlock or a leak.
func (r *Result) crashDeadlocks() []Finding {
	c := r.heldLockCycles(r.blockedForever())
	if len(c.stuck) == 0 {
		return nil
	}
	return r.stuckFindings(c.stuck, r.blockedForever(), "the goroutines were deadlocked when the run ended ("+r.crashWhy()+")")
}

// crashWhy says how a crashed run ended, for a finding's message.
func (r *Result) crashWhy() string {
	m := r.Trace.Meta
	what := "a fatal error"
	if m["exit"] == "panic" {
		what = "a panic"
	}
	if msg := m["message"]; msg != "" {
		if len(msg) > 80 {
			msg = msg[:80] + "..."
		}
		what += ": " + strconv.Quote(strings.ToValidUTF8(msg, ""))
	}
	return "by " + what
}
