package analysis

import "fmt"

var SendOnClosed = &Detector{
	Name: "send-on-closed",
	Doc: `A send on a closed channel, or a send that the happens-before relation does not order with a close of its channel.

Sending on a closed channel panics. When the send and the close are unordered, the run
only survived because of timing: another schedule runs the close first. The usual cause is
a closer that does not know all senders are done (closing after a sleep, a timeout, or
from a receiver). Fix it by letting only the sender side close (the last sender, after a
WaitGroup of all senders), or by signalling shutdown on a separate done channel that
senders select on instead of closing the data channel. A select's send case panics the
same way and is reported at the case; a panic the test recovers (require.NotPanics) is still
reported. A send in a function that defers a recover() is not reported: the panic is caught there by design (a Submit that returns
ErrStopped once the pool is closed).`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.sendOnClosed {
			if r.recovered(p.a) {
				continue
			}
			ch, at, clause := r.sendSite(p.a)
			msg := fmt.Sprintf("send on %s at %s panicked: the channel was already closed", ch, at)
			if p.b >= 0 {
				msg = fmt.Sprintf("send on %s at %s panicked: the channel was closed at %s", ch, at, r.at(p.b))
			}
			f := r.newFinding("send-on-closed", Actual, msg, op{"send", p.a}, op{"close", p.b})
			r.atClause(&f, clause)
			out = append(out, f)
		}
		for _, c := range r.facts.closeRaces {
			if !c.send || r.recovered(c.op) {
				continue
			}
			ch, at, clause := r.sendSite(c.op)
			msg := fmt.Sprintf("send on %s at %s may run after close(%s) at %s: the two are not ordered",
				ch, at, r.operand(c.close, ch), r.at(c.close))
			f := r.newFinding("send-on-closed", Predicted, msg, op{"send", c.op}, op{"close", c.close})
			r.atClause(&f, clause)
			out = append(out, f)
		}
		return out
	},
}

var RecvOnClosed = &Detector{
	Name: "recv-on-closed",
	Doc: `A value receive that returns, or may return, the zero value because its channel is closed.

A plain receive (v := <-ch) cannot tell a real value from the zero value a
closed channel yields, so the program goes on with a value nobody sent (often a nil
pointer). Range loops, comma-ok receives and bare <-ch signal waits handle closing and are
not reported; neither are select cases (a trace cannot tell case v := <-ch from
case v, ok := <-ch). Only a receive with evidence of harm is reported: close as a signal is
idiomatic (a goroutine defers close(errCh) and sends only on failure; the reader checks
if err := <-errCh; err != nil), so a receive that compares its value with nil or the zero
value (in its if statement or the one right after it), or from a channel closed by a
deferred close in the goroutine that made every send on it, is not reported, unless
another goroutine sent on the channel (a value this receive could have taken is lost to
it in another ordering); nor a receive by the goroutine that closed the channel before it,
whose value it returns (wg.Wait(); close(errCh); err = <-errCh; return: the values sent
before the close come first, the zero value says there was none). Fix it with v, ok := <-ch and handling !ok, or by ordering the close after
the send the receiver waits for.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		sig := newCloseSignal(r)
		for _, p := range r.facts.recvOnClosed {
			if sig.harmless(p.a, p.b) {
				continue
			}
			ch := r.operand(p.a, "the channel")
			msg := fmt.Sprintf("receive from %s at %s got the zero value of a closed channel", ch, r.at(p.a))
			if p.b >= 0 {
				msg = fmt.Sprintf("receive from %s at %s got the zero value: the channel was closed at %s", ch, r.at(p.a), r.at(p.b))
			}
			out = append(out, r.newFinding("recv-on-closed", Actual, msg, op{"receive", p.a}, op{"close", p.b}))
		}
		for _, c := range r.facts.closeRaces {
			if c.send || sig.harmless(c.op, c.close) {
				continue
			}
			ch := r.operand(c.op, "the channel")
			msg := fmt.Sprintf("receive from %s at %s may see the channel closed at %s and get the zero value: the two are not ordered",
				ch, r.at(c.op), r.at(c.close))
			out = append(out, r.newFinding("recv-on-closed", Predicted, msg, op{"receive", c.op}, op{"close", c.close}))
		}
		return out
	},
}

var CloseOfClosed = &Detector{
	Name: "close-of-closed",
	Doc: `A close of a channel that is already closed.

Closing a closed channel panics. It typically happens when two shutdown paths (Close and
Shutdown, a deferred close and an explicit one, two goroutines that both see an error)
each close the same channel. Fix it by closing in exactly one place, or guard the close
with a sync.Once. A close in a function that defers a recover() is not reported (caught by
design).`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.closeOfClosed {
			if r.recovered(p.a) {
				continue
			}
			ch := r.operand(p.a, "the channel")
			msg := fmt.Sprintf("close(%s) at %s panicked: the channel was already closed", ch, r.at(p.a))
			if p.b >= 0 {
				msg = fmt.Sprintf("close(%s) at %s panicked: the channel was already closed at %s", ch, r.at(p.a), r.at(p.b))
			}
			out = append(out, r.newFinding("close-of-closed", Actual, msg, op{"close", p.a}, op{"first close", p.b}))
		}
		return out
	},
}

var CloseOfNil = &Detector{
	Name: "close-of-nil",
	Doc: `A close of a nil channel.

close(nil) panics. The channel variable was never assigned (a lazily made channel, an
optional subscriber) on the path that closes it. Fix it by checking for nil before
closing, or by always making the channel.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, i := range r.facts.closeOfNil {
			msg := fmt.Sprintf("close(%s) at %s panicked: the channel is nil", r.operand(i, "the channel"), r.at(i))
			out = append(out, r.newFinding("close-of-nil", Actual, msg, op{"close", i}))
		}
		return out
	},
}

var ConcurrentRecv = &Detector{
	Name: "concurrent-recv",
	Doc: `Two value receives on one channel, in different goroutines, that the happens-before relation does not order.

Which receiver gets which value depends on the schedule: a caller can take another
caller's reply. Only plain value receives count: range loops and comma-ok receives (the
worker pool pattern, where any worker may take any job) and select cases are not reported,
nor is one receive statement inside a loop run by goroutines started at one go statement
(identical workers taking the next task: task = <-queue in a for loop).
Fix it by giving each requester its own reply channel (send the reply channel with the
request) or by serializing the request/reply pairs.`,
	Run: func(r *Result) []Finding {
		var out []Finding
		for _, p := range r.facts.concRecvs {
			a, b := int32(p.First), int32(p.Second)
			if r.symmetricConsumers(a, b) {
				continue
			}
			ch := r.operand(b, "the channel")
			msg := fmt.Sprintf("receives from %s at %s and %s run in different goroutines and are not ordered: which receiver gets which value depends on the schedule",
				ch, r.at(b), r.at(a))
			out = append(out, r.newFinding("concurrent-recv", Actual, msg, op{"receive", b}, op{"concurrent receive", a}))
		}
		return out
	},
}

var SelectCaseWithoutPartner = &Detector{
	Name: "select-case-without-partner",
	Doc: `A select case that no operation in the run could ever have served.

No send (for a receive case), receive (for a send case) or close on the case's channel
happened in another goroutine concurrently with the select, so the case is dead in this
run: often the wrong channel is closed or signalled (a copy, another struct's field), and
the code the case guards (shutdown, cancellation) never runs. Cases on nil channels and on
channels made outside the recorded code (contexts, timers) are not reported, nor is anything
when the run did not end normally or a goroutine of the test was still running or sleeping
at the end (the partner may just not have run yet). Fix it by
signalling the channel the select actually waits on. Selects with a default case (a try
that may always fail) and selects that a cancellation or timeout decided (a case on a channel
from outside the recorded code was taken) are not reported. Nor is a case whose channel the
source serves somewhere (an interrupt method that closes it, which the test never calls; a
constructor that stores into the same field a channel it sends on, where the test built the
struct with a channel of its own) or lets go where the check cannot follow (passed to a function, returned, an exported field):
such a case is unexercised by the test, not dead. Nor is a case of a test's select whose
body fails the test (case <-closed: t.Errorf("closed too early")): the test checks that it
does not happen, and it not happening is the test passing.`,
	Run: func(r *Result) []Finding {
		if r.end() != endNormal || r.lingering() {
			return nil // the run was cut short: a partner may simply not have run yet
		}
		var out []Finding
		for _, c := range r.SelectPartners() {
			if !c.Known || c.HasPartner() || c.Default || c.Foreign || r.Trace.Events[c.Select].Post == 0 {
				// a try (select with default) may always fail; a cancellation or timeout may
				// come later in another run; a select blocked forever is a leak
				continue
			}
			dir := "receive from"
			if c.Send {
				dir = "send on"
			}
			x := r.eng.chanIdx[c.Chan]
			made := r.eng.chans[x].made
			if made >= 0 {
				if p := r.Trace.Position(r.Trace.Events[made].Pos); sourceMayServe(p.File, p.Line, c.Send, r.Trace.Position(r.Trace.Events[c.Select].Pos)) {
					continue // unexercised, not dead: code that did not run in this test serves it
				}
			}
			s := int32(c.Select)
			if r.caseFailsTest(s, c.Case) {
				continue // a negative check: the test fails if this case fires
			}
			name, clause := r.selectCase(s, c.Case)
			msg := fmt.Sprintf("%s of the select at %s, a %s the channel made at %s, never had a possible partner: no operation in another goroutine could have served it",
				name, r.at(s), dir, r.at(made))
			f := r.newFinding("select-case-without-partner", Actual, msg, op{"select", s}, op{"channel made", made})
			if clause != nil && f.Kind != "" {
				f.Positions = append(f.Positions, *clause) // after the fingerprint: it names the select and the channel
			}
			out = append(out, f)
		}
		return out
	},
}

// recovered reports whether the operation at event i is in a function that defers a
// recover(): a panic it raises is caught on purpose.
func (r *Result) recovered(i int32) bool {
	p := r.Trace.Position(r.Trace.Events[i].Pos)
	return sourceShape(p.File, p.Line).recovers
}

// symmetricConsumers reports whether receives a and b are one receive statement inside a
// loop, run by two goroutines started at the same go statement: identical workers
// consuming a queue, where any of them may take any value by design.
func (r *Result) symmetricConsumers(a, b int32) bool {
	ea, eb := &r.Trace.Events[a], &r.Trace.Events[b]
	if ea.Pos != eb.Pos || ea.Pos == 0 {
		return false
	}
	ga, gb := r.gOf[a], r.gOf[b]
	if ga < 0 || gb < 0 || int(ga) >= len(r.Goroutines) || int(gb) >= len(r.Goroutines) {
		return false
	}
	sa, sb := r.Goroutines[ga].Spawn, r.Goroutines[gb].Spawn
	if sa < 0 || sb < 0 || r.Trace.Events[sa].Pos != r.Trace.Events[sb].Pos {
		return false
	}
	p := r.Trace.Position(ea.Pos)
	return sourceShape(p.File, p.Line).inLoop
}
