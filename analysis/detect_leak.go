package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// lingering reports whether a goroutine started by recorded code was still alive at the end
// without being blocked in a recorded operation (sleeping, computing, in a system call):
// what it would have done next is unknown.
func (r *Result) lingering() bool {
	for _, g := range r.Goroutines {
		if g.Alive && !g.Ended && g.Blocked < 0 && g.Spawn >= 0 && r.Trace.Events[g.Spawn].Pos != 0 {
			return true
		}
	}
	return false
}

// leak is a goroutine blocked forever at the end of a normally ended run.
type leak struct {
	kind        string
	ev          int32
	related     []op
	proven      bool // the GC's leak detection found what it waits on unreachable
	ticker      int  // > 0: a select woken only by a timer (that many times), whose other cases nothing can signal (detect_ticker.go)
	tickerFires int  // of those wakes, the ones that got a value a recorded timer fire delivered
	abandoned   bool // a Lock cut short by the exit, on a mutex whose holder has ended
	timeLimit   bool // proven when the run was stopped at its time limit or found stuck (detect_timelimit.go)
	testOnly    bool // a leak of the test's own goroutines (testOnlyRule), or of an object the test never closed (testMade)
	testMade    bool // test-only because the test made the object and never ran its close (wayOutRule)
	wayOut      *wayOut
	dropped     int32   // > 0: the package's dropped non-blocking send this receive waited for, plus 1 (leak_lostsignal.go)
	owers       []int32 // the test-only leaks owing the Dones this Wait waits for (leak_waitchain.go)
	emptySelect bool    // blocked in an empty select of a _test.go file (leak_emptyselect.go)
}

// statusLeaked is Go 1.26's _Gleaked: the GC's leak detection (run by the
// recorder at a normal exit, META leakgc=1) proved the goroutine blocked on
// primitives no runnable goroutine or global can reach.
const statusLeaked = 10

// gcVerdict reports whether the recorder ran the GC's leak detection, so that
// a blocked goroutine's status says whether it leaked (statusLeaked) or is
// lingering: still reachable, through a global or a live goroutine.
func (r *Result) gcVerdict() bool { return r.Trace.Meta["leakgc"] == "1" }

// traceAloneNote says that a leak was confirmed by the trace alone because
// the recorder ran no GC leak detection: Go 1.25 has none, later releases
// when GOWEAVE_LEAKGC=0.
func (r *Result) traceAloneNote() string {
	if v := r.Trace.Meta["goversion"]; strings.HasPrefix(v, "go1.25.") {
		return "; confirmed by the trace alone on " + v + " (no GC leak detection before Go 1.26)"
	}
	return "; confirmed by the trace alone (the GC's leak detection did not run)"
}

// gcReachabilityUnreliable reports kinds whose primitive the GC may find
// reachable although nothing can reach it: a bare sync.Mutex is 8
// pointer-free bytes, which the tiny allocator packs into one 16-byte block
// with other objects, and the GC marks whole blocks.
func gcReachabilityUnreliable(kind string) bool { return kind == "leak-mutex" }

// leakKind classifies a blocked operation.
func leakKind(ev *trace.Event) string {
	switch ev.Kind {
	case trace.KindChanSend, trace.KindChanRecv:
		if ev.Obj == 0 || ev.Flags.Has(trace.FlagNilChan) {
			return "leak-nil-chan"
		}
		return "leak-chan"
	case trace.KindSelect:
		return "leak-select"
	case trace.KindLock, trace.KindRLock:
		return "leak-mutex"
	case trace.KindWgWait:
		return "leak-waitgroup"
	case trace.KindCondWait:
		return "leak-cond"
	}
	return ""
}

// leaks lists the blocked operations of a normally ended run that are true leaks: a
// goroutine still alive and not blocked itself (it may be sleeping or computing) that used
// the same object could still unblock them, so those are lingering, not leaked.
func (r *Result) leaks() []leak {
	if !r.leaksDone {
		r.leaksDone = true
		r.leakList = r.findLeaks()
	}
	return r.leakList
}

func (r *Result) findLeaks() []leak {
	if r.end() != endNormal {
		out := r.withoutEndedBubbles(r.withoutPackageDaemons(r.timeLimitLeaks()))
		r.markTestOnly(out)
		r.markEmptySelect(out)
		r.markWayOut(out)
		r.markWaitChain(out)
		return out
	}
	evs := r.Trace.Events
	users := r.objectUsers(r.facts.blocked, true) // object -> goroutines that used it
	// per object, the users that could still serve it: alive, not blocked, not ended (the
	// count and one of them, so that "one other than the blocked goroutine" is O(1))
	type servers struct {
		n     int
		first int32
	}
	free := make(map[uint64]servers, len(users))
	for o, us := range users {
		var s servers
		for g := range us {
			if info := r.Goroutines[g]; info.Alive && info.Blocked < 0 && !info.Ended {
				if s.n == 0 || g < s.first {
					s.first = g
				}
				s.n++
			}
		}
		free[o] = s
	}
	gc := r.gcVerdict()
	var out []leak
	for _, i := range r.facts.blocked {
		ev := &evs[i]
		kind := leakKind(ev)
		g := r.Goroutines[r.gOf[i]]
		if kind == "" || r.holderWaitsOnClock(i) || r.holderLingers(i) { // rule_nonblocking.go, holderLingers below
			continue
		}
		abandoned := false
		if !parked(g) {
			if abandoned = r.abandonedMutex(i); !abandoned {
				continue
			}
		}
		if gc && g.Alive && g.Status == statusLeaked && !abandoned {
			out = append(out, leak{kind: kind, ev: i, related: r.partners(i), proven: true})
			continue
		}
		if gc && g.Alive && !gcReachabilityUnreliable(kind) && !abandoned {
			continue // reachable at exit: lingering
		}
		lingering := false
		for _, o := range blockedObjs(ev) {
			if s := free[o]; s.n > 1 || s.n == 1 && s.first != r.gOf[i] {
				lingering = true
			}
		}
		if lingering {
			continue
		}
		out = append(out, leak{kind: kind, ev: i, related: r.partners(i), abandoned: abandoned})
	}
	reported := make(map[int32]bool, len(out))
	for _, l := range out {
		reported[l.ev] = true
	}
	out = append(out, r.tickerLeaks(reported)...)
	out = r.withoutEndedBubbles(r.withoutPackageDaemons(out))
	r.markTestOnly(out)
	r.markEmptySelect(out)
	r.markWayOut(out)
	r.markWaitChain(out)
	return out
}

// testOnlyRule is the rule markTestOnly applies, shown in every leak kind's doc.
const testOnlyRule = `A leak of the test's own goroutines is reported as test-only (JSON test_only, severity
warning, "a goroutine of the test itself: test-only" in the message): the goroutine was
started by a go statement in a _test.go file, it is blocked at a position in a _test.go
file, and every recorded operation on what it waits on (the channel's make, sends,
receives and closes, the mutex's, WaitGroup's or Cond's operations, a select's every
channel) is in a _test.go file: the package's non-test code never touched it. A goroutine
the test starts that blocks inside the package's code, or waits on a channel the package
made or uses, is an ordinary leak (error).`

// markTestOnly sets testOnly on the leaks that follow testOnlyRule. One pass over the
// events finds the objects non-test code used, whatever the number of leaks.
func (r *Result) markTestOnly(leaks []leak) {
	evs := r.Trace.Events
	inTest := map[uint32]bool{} // position -> in a _test.go file, memoized
	testPos := func(pos uint32) bool {
		v, ok := inTest[pos]
		if !ok {
			v = pos != 0 && strings.HasSuffix(r.Trace.Position(pos).File, "_test.go")
			inTest[pos] = v
		}
		return v
	}
	objs := map[uint64]bool{} // what candidate leaks wait on -> used by non-test code
	var candidates []int
	for k, l := range leaks {
		info := r.Goroutines[r.gOf[l.ev]]
		if info.Spawn < 0 || !testPos(evs[info.Spawn].Pos) || !testPos(evs[l.ev].Pos) {
			continue
		}
		candidates = append(candidates, k)
		for _, o := range blockedObjs(&evs[l.ev]) {
			objs[o] = false
		}
	}
	if len(candidates) == 0 {
		return
	}
	use := func(o uint64, pos uint32) {
		if used, ok := objs[o]; ok && !used && pos != 0 && !testPos(pos) {
			objs[o] = true
		}
	}
	for i := range evs {
		if ev := &evs[i]; ev.Kind == trace.KindSelect {
			for _, c := range ev.Cases {
				use(c.Obj, ev.Pos)
			}
		} else if ev.Obj != 0 && ev.Kind != trace.KindGoSpawn && ev.Kind != trace.KindGoEnd {
			use(ev.Obj, ev.Pos)
		}
	}
	for _, k := range candidates {
		l := &leaks[k]
		l.testOnly = true
		for _, o := range blockedObjs(&evs[l.ev]) {
			if objs[o] {
				l.testOnly = false
			}
		}
	}
}

// abandonedMutex reports whether blocked operation i is a Lock or RLock that can never
// complete however the run had gone on: the mutex is held at the end by an acquisition
// (write-held, for an RLock) of another goroutine that has ended, so the usual unlocker is
// gone. Then the requester is a leak even if the exit caught it before it parked (runnable
// or running: between the request and the runtime's wait, e.g. released by a goweave delay
// just before the test returned), which parked() alone would take for cut short. A
// goroutine held by a goweave delay has no event for the held operation yet, so this never
// reports an operation the schedule is still holding and that could still complete.
func (r *Result) abandonedMutex(i int32) bool {
	ev := &r.Trace.Events[i]
	if ev.Kind != trace.KindLock && ev.Kind != trace.KindRLock {
		return false
	}
	h, ok := r.facts.holders[ev.Obj]
	if !ok || r.gOf[h] < 0 || r.gOf[h] == r.gOf[i] {
		return false
	}
	if held := &r.Trace.Events[h]; ev.Kind == trace.KindRLock && held.Kind != trace.KindLock && held.Kind != trace.KindTryLock {
		return false // read-held: an RLock is not blocked by readers
	}
	return r.Goroutines[r.gOf[h]].Ended
}

// parked reports whether a goroutine with an unfinished operation was really waiting when
// the run ended. A process can exit while a goroutine is between an operation's request and
// its completion on another P (runnable, running, in a system call): that goroutine was cut
// short, not blocked forever. A goroutine missing from the final list is taken as parked.
func parked(g GoroutineInfo) bool {
	const runnable, running, syscall = 1, 2, 3
	return !g.Alive || (g.Status != runnable && g.Status != running && g.Status != syscall)
}

// holderLingers reports whether Lock or RLock i, blocked at the end of a run the GC's leak
// detection checked, waits for a mutex whose holder is parked in an operation the GC can
// judge (a channel, a WaitGroup, a Cond: not a mutex, gcReachabilityUnreliable) and found
// still reachable: the holder is lingering, not leaked, so nothing shows that i waits
// forever (survey 8 rerun, watermill's TestFanIn: the GoChannel's Close held closedLock in
// subscribersWg.Wait, lingering, and a second Close's Lock was reported as a leak-mutex).
func (r *Result) holderLingers(i int32) bool {
	return r.gcVerdict() && r.someHolder(i, func(info GoroutineInfo) bool { // rule_nonblocking.go
		if info.Blocked < 0 || !info.Alive || !parked(info) || info.Status == statusLeaked {
			return false
		}
		k := leakKind(&r.Trace.Events[info.Blocked])
		return k != "" && !gcReachabilityUnreliable(k)
	})
}

// blockedObjs returns the objects an operation waits on (the channels of a select).
func blockedObjs(ev *trace.Event) []uint64 {
	if ev.Kind == trace.KindSelect {
		var out []uint64
		for _, c := range ev.Cases {
			if c.Obj != 0 {
				out = append(out, c.Obj)
			}
		}
		return out
	}
	if ev.Obj == 0 || ev.Kind == trace.KindGoSpawn || ev.Kind == trace.KindGoEnd {
		return nil
	}
	return []uint64{ev.Obj}
}

// partners returns the operations that could have unblocked blocked operation i: channel
// operations of the opposite direction in other goroutines (the latest of each position),
// the acquisition still holding a mutex, the last Signal of a Cond, the last Add of a
// WaitGroup.
func (r *Result) partners(i int32) []op {
	e := r.eng
	ev := &r.Trace.Events[i]
	g := r.gOf[i]
	chanPartner := func(obj uint64, send bool) []op {
		x, ok := e.chanIdx[obj]
		if !ok {
			return nil
		}
		best := r.latestUsers(x, send)
		p := best[0]
		if p.g == g {
			p = best[1]
		}
		if p.ev < 0 {
			return nil
		}
		return []op{{"partner", p.ev}}
	}
	switch ev.Kind {
	case trace.KindChanSend:
		return chanPartner(ev.Obj, true)
	case trace.KindChanRecv:
		return chanPartner(ev.Obj, false)
	case trace.KindSelect:
		var out []op
		for _, c := range ev.Cases {
			if c.Obj != 0 {
				out = append(out, chanPartner(c.Obj, c.Send)...)
			}
		}
		return out
	case trace.KindLock, trace.KindRLock:
		if h, ok := r.facts.holders[ev.Obj]; ok {
			return []op{{"held lock", h}}
		}
	case trace.KindCondWait:
		if x := e.objOf[i]; x >= 0 && e.conds[x].last >= 0 {
			return []op{{"signal", e.conds[x].last}}
		}
	case trace.KindWgWait:
		if x := e.objOf[i]; x >= 0 && e.wgs.at(x).facts != nil && len(e.wgs.at(x).facts.adds) > 0 {
			adds := e.wgs.at(x).facts.adds
			return []op{{"add", adds[len(adds)-1]}}
		}
	}
	return nil
}

// latestUsers returns, for the operations of channel x that could partner a send (send)
// or a receive, the latest one and the latest of another goroutine than the latest's (ev
// -1: none), computed once per channel and direction: with many goroutines blocked on one
// channel, scanning its users for each of them took time squared.
func (r *Result) latestUsers(x int32, send bool) [2]chanUser {
	key := x<<1 | int32(boolBit(send))
	if best, ok := r.partnerMemo[key]; ok {
		return best
	}
	best := [2]chanUser{{ev: -1, g: -1}, {ev: -1, g: -1}}
	classes := sendClasses
	if send {
		classes = recvClasses
	}
	for _, class := range classes {
		for _, u := range r.eng.chans[x].users[class] {
			switch {
			case u.ev > best[0].ev:
				if u.g != best[0].g {
					best[1] = best[0]
				}
				best[0] = u
			case u.g != best[0].g && u.ev > best[1].ev:
				best[1] = u
			}
		}
	}
	if r.partnerMemo == nil {
		r.partnerMemo = map[int32][2]chanUser{}
	}
	r.partnerMemo[key] = best
	return best
}

func boolBit(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *Result) spawnedAt(i int32) string {
	info := r.goroutine(int(i))
	if info != nil && r.Trace.Meta["testgoid"] == strconv.FormatUint(info.ID, 10) {
		return "the test goroutine" // named by the runtime
	}
	if info == nil || info.Spawn < 0 || r.Trace.Events[info.Spawn].Pos == 0 {
		if info != nil && info.Parent > 1 {
			return "a goroutine started outside the recorded code"
		}
		return "the test goroutine" // spawned by the testing package from main
	}
	return "the goroutine started at " + r.at(int32(info.Spawn))
}

func (r *Result) blockedIn(i int32) string {
	ev := &r.Trace.Events[i]
	switch ev.Kind {
	case trace.KindChanSend:
		if ev.Obj == 0 {
			return "sending on a nil channel"
		}
		return "sending on " + r.operand(i, "a channel")
	case trace.KindChanRecv:
		if ev.Obj == 0 {
			return "receiving from a nil channel"
		}
		return "receiving from " + r.operand(i, "a channel")
	case trace.KindSelect:
		return "in a select"
	case trace.KindLock, trace.KindRLock:
		return "locking " + r.operand(i, "a mutex")
	case trace.KindWgWait:
		return "in " + r.operand(i, "a WaitGroup") + ".Wait()"
	case trace.KindCondWait:
		return "in " + r.operand(i, "a Cond") + ".Wait()"
	}
	return "in " + ev.Kind.String()
}

func leakDetector(kind, summary, why string) *Detector {
	d := &Detector{Name: kind, Doc: summary + "\n\n" + why + "\n\n" + testOnlyRule + "\n\n" + packageDaemonRule + "\n\n" + bubbleRule}
	if kind == "leak-chan" || kind == "leak-select" {
		d.Doc += "\n\n" + wayOutRule + "\n\n" + lostSignalRule
	}
	if kind == "leak-select" {
		d.Doc += "\n\n" + emptySelectRule
	}
	if kind == "leak-waitgroup" {
		d.Doc += "\n\n" + waitChainRule
	}
	d.Run = func(r *Result) []Finding {
		var out []Finding
		var mine []leak
		for _, l := range r.leaks() {
			if l.kind == kind {
				mine = append(mine, l)
			}
		}
		behind := sameHeldLock(mine)
		for k, l := range mine {
			if behind[k] < 0 {
				continue // reported with the first goroutine queued behind the same lock
			}
			if kind == "leak-waitgroup" && r.failNowLeft(l.ev) {
				continue // reported as the failnow-off-test that left it waiting
			}
			msg := fmt.Sprintf("%s is blocked forever %s at %s", r.spawnedAt(l.ev), r.blockedIn(l.ev), r.at(l.ev))
			if l.ticker > 0 {
				msg = fmt.Sprintf("%s loops forever in the select at %s: only the timer made at %s woke it (%s), and its other cases wait on the channel made at %s, which nothing closed and nothing can any more (the test returned)",
					r.spawnedAt(l.ev), r.at(l.ev), r.at(l.related[0].ev), tickerWakes(l), r.at(l.related[1].ev))
			} else if len(l.related) > 0 {
				msg += fmt.Sprintf(" (%s at %s)", l.related[0].role, r.at(l.related[0].ev))
			}
			if l.timeLimit {
				msg += "; the test did not finish: proven when the run was " + r.stoppedWhy() + ", no live goroutine or global can reach what it waits on"
			} else if l.proven {
				msg += "; proven: no live goroutine or global can reach what it waits on"
			} else if !r.gcVerdict() {
				msg += r.traceAloneNote()
			}
			if l.abandoned {
				msg += "; the goroutine holding the mutex has ended (the run ended before the Lock parked)"
			}
			if l.wayOut != nil {
				msg += r.wayOutText(l.wayOut)
			}
			if l.dropped > 0 {
				msg += r.lostSignalText(l)
			}
			switch {
			case len(l.owers) > 0:
				msg += r.waitChainText(l)
			case l.emptySelect:
				msg += "; it waits in the test's empty select {}, which nothing can end: test-only"
			case l.testMade && l.wayOut.closer > 0:
				msg += fmt.Sprintf("; the goroutine that would run it, %s, is blocked at %s, a leak of the test's: test-only",
					r.spawnedAt(l.wayOut.closer-1), r.at(l.wayOut.closer-1))
			case l.testMade && l.wayOut.testChan:
				msg += "; the test never closed it: test-only"
			case l.testMade:
				msg += fmt.Sprintf("; the test made it (%s, called at %s) and never closed it: test-only", l.wayOut.makeFunc, l.wayOut.testCall)
			case l.testOnly:
				msg += " (a goroutine of the test itself: test-only)"
			}
			ops := append([]op{{"blocked", l.ev}}, l.related...)
			if l.wayOut != nil {
				ops = append(ops, op{"made", l.wayOut.made})
			}
			root := len(ops)
			var queued []int32
			for j := range mine {
				if behind[j] == -1-k {
					queued = append(queued, mine[j].ev)
				}
			}
			if len(queued) > 0 {
				msg += fmt.Sprintf("; %d other goroutine(s) wait for the same lock: %s", len(queued), r.waitingLines(queued))
				lines := map[uint32]bool{r.Trace.Events[l.ev].Pos: true}
				for _, i := range queued {
					if p := r.Trace.Events[i].Pos; !lines[p] && len(ops)-root < maxAlsoBlocked {
						lines[p] = true
						ops = append(ops, op{"also blocked", i})
					}
				}
			}
			f := r.newFinding(kind, Actual, msg, ops...)
			if behind[k] > 0 && len(f.Positions) > 0 {
				// one lock never released, whichever goroutines queued behind it in this run
				f.Fingerprint = r.fingerprint(kind, []Position{heldPosition(f.Positions[:root])})
			}
			if w := l.wayOut; w != nil && !w.testChan && len(f.Positions) > 0 {
				// the close that never ran is in the source, not the trace: not part of the fingerprint
				f.Positions = append(f.Positions, Position{Role: "close that never ran", File: w.close.File, Line: w.close.Line, Column: w.close.Column})
			}
			f.TestOnly = l.testOnly
			f.Severity = SeverityOfFinding(&f)
			out = append(out, f)
		}
		return out
	}
	return d
}

// sameHeldLock groups the leak-mutex leaks queued behind the same held acquisition (one
// lock never released, one finding): for each leak, 1 when it is the first of its group
// (trace order), -1-k when it is queued behind leak k, 0 when no acquisition holds its
// mutex.
func sameHeldLock(leaks []leak) []int {
	out := make([]int, len(leaks))
	leader := map[int32]int{} // held acquisition -> its first leak
	heldOf := func(l leak) (int32, bool) {
		for _, o := range l.related {
			if o.role == "held lock" {
				return o.ev, true
			}
		}
		return -1, false
	}
	for k, l := range leaks {
		if h, ok := heldOf(l); ok {
			if j, seen := leader[h]; !seen || l.ev < leaks[j].ev {
				leader[h] = k
			}
		}
	}
	for k, l := range leaks {
		if h, ok := heldOf(l); ok {
			if j := leader[h]; j == k {
				out[k] = 1
			} else {
				out[k] = -1 - j
			}
		}
	}
	return out
}

// heldPosition is the "held lock" position of ps, or the first.
func heldPosition(ps []Position) Position {
	for _, p := range ps {
		if p.Role == "held lock" {
			return p
		}
	}
	return ps[0]
}

var LeakChan = leakDetector("leak-chan",
	"A goroutine blocked forever in a send or receive on a non-nil channel.",
	`The goroutine and everything it references are never freed, and the work it carried is lost.
Typical causes: the receiver returned early (timeout, error, first result wins) and the
sender has nobody left; a buffered channel smaller than the number of senders. Fix it by
giving the channel room for every sender (buffer = number of sends), or by letting senders
select on a done/context channel.`)

var LeakSelect = leakDetector("leak-select",
	"A goroutine blocked forever in a select.",
	`None of the select's cases will ever become ready: the goroutine leaks. Typically the
stop/done channel it waits on is never closed on some path (an early return in Stop, a
forgotten cancel). Also reported: a goroutine that loops forever in a select woken only by
a timer or ticker while its other cases wait on a context's Done channel that nothing
cancelled before the test returned (the ticker keeps it alive, so it is never blocked for
good; the trace shows every wake-up came from the timer). Fix it by closing the stop
channel (or cancelling the context, e.g. defer cancel()) on every path that abandons the
goroutine.`)

var LeakMutex = leakDetector("leak-mutex",
	"A goroutine blocked forever in Lock or RLock.",
	`The mutex is never released: some path returned while holding it. Fix it with
defer mu.Unlock() right after Lock, so every return path releases it. The goroutines
queued behind one held lock are one finding (at the first of them to block, the held
Lock related, the others counted), identified by that held Lock across runs.`)

var LeakWaitGroup = leakDetector("leak-waitgroup",
	"A goroutine blocked forever in WaitGroup.Wait.",
	`Some Add is never balanced by a Done: a goroutine returned early (an error or cancel
branch) without calling Done. Fix it with defer wg.Done() at the top of each goroutine,
or wg.Go.`)

var LeakCond = leakDetector("leak-cond",
	"A goroutine blocked forever in Cond.Wait: no Signal or Broadcast will come.",
	`Usually a lost wakeup: the Signal happened before the Wait, because Wait was called
without first checking the condition under the lock. Fix it by waiting in a loop,
for !cond { c.Wait() }, with the state change and the Signal under the same lock.`)

var LeakNilChan = leakDetector("leak-nil-chan",
	"A goroutine blocked forever on a nil channel.",
	`Sends and receives on a nil channel block forever (a range over a nil channel too). The
channel field was never made on this path. Fix it by making the channel before starting
the goroutine, or by not starting the goroutine when there is no channel.`)

var Deadlock = &Detector{
	Name: "deadlock",
	Doc: `The run actually got stuck: goroutines blocked for good until the runtime's deadlock check, the test timeout or a kill.

A run killed at its time limit while the test goroutine was not blocked, or was waiting
(directly or through blocked goroutines) for one that was still running, sleeping or in a
system call, was slow, not stuck: it is not reported as a whole. So was one waiting on a
channel a library made for it (a context's Done) while a function timer of the run (a
context's deadline, time.AfterFunc) had not fired yet: the deadline may still end the wait. Goroutines of such a run
blocked in a lock cycle (each Lock waits for a mutex the next one holds, the last for the
first's; an RLock queued behind a writer blocked in Lock of that RWMutex waits for it, the
writer for the mutex's readers) are still reported: only a holder unlocks, so they could
never have proceeded;
and goroutines the GC's leak detection, run at the time limit (Go 1.26 and later), proved
blocked for good are reported as the leak they are (leak-chan, leak-select, ...).

A run is stuck only on evidence: the runtime's "all goroutines are asleep", goweave's
stuck check or time limit, or testing's -timeout. A process that died of a panic (even one
whose message says "deadlock"), a fatal error or os.Exit while goroutines were blocked is
not stuck: what would have woken them (a deferred Close, a runnable goroutine) never ran.
Only a lock cycle among its blocked goroutines is reported then, for the reason above.

One stuck state is one finding, anchored at its root cause: the Lock never released (its
holder exited, or is not blocked, without unlocking it), the cycle of goroutines waiting for
each other, or the operation nothing left can complete (a holder blocked elsewhere is
followed to what it waits for). The other blocked goroutines, which wait for the root, are
related positions (one per line, capped), counted in the message; the fingerprint is the
root's, so runs in which different goroutines queued behind it are one finding. When the runtime names the test goroutine
(META testgoid) and it is blocked, only the goroutines connected to it by what they wait
for (a mutex's holder, users of a channel, a WaitGroup or Cond) are reported: unrelated
idle goroutines are not part of the deadlock. Fix the cycle the operations form:
lock order, a lock held across a channel operation, or a missing send/close.`,
	Run: func(r *Result) []Finding {
		switch r.end() {
		case endNormal:
			return nil
		case endCrash:
			return r.crashDeadlocks()
		}
		blocked := r.blockedForever() // what the goroutines are stuck in
		test, testKnown := r.testGoroutine()
		waits := r.waitGraph(blocked)
		if testKnown && r.slowNotStuck(test, blocked, waits) {
			return r.timeLimitDeadlocks(blocked)
		}
		stuck := r.stuckWithTest(test, testKnown, blocked, waits)
		return r.stuckFindings(stuck, blocked, "the run is stuck")
	},
}

// stuckFindings reports the stuck states of the blocked operations stuck (of all the run's
// blocked operations, blocked) as one deadlock finding per root cause (stuck_root.go);
// operations that reach no root (waiting for a goroutine that may still proceed) are
// reported together, at the first of them, so that a stuck run is never reported silent.
func (r *Result) stuckFindings(stuck, blocked []int32, head string) []Finding {
	var out []Finding
	rooted := map[int32]bool{}
	for _, s := range r.stuckRoots(stuck, blocked) {
		for _, i := range append(slices.Clone(s.ops), s.waiting...) {
			rooted[i] = true
		}
		if len(s.ops) == 1 && r.Trace.Events[s.ops[0]].Kind == trace.KindWgWait && r.failNowLeft(s.ops[0]) {
			continue // reported as the failnow-off-test that left the Wait waiting
		}
		out = append(out, r.stuckFinding(s, head))
	}
	var rest []int32
	for _, i := range stuck {
		if !rooted[i] {
			rest = append(rest, i)
		}
	}
	if len(rest) > 0 && len(out) == 0 {
		out = append(out, r.stuckFinding(stuckRoot{kind: rootStuckOp, lock: -1, ops: rest[:1], waiting: rest[1:]}, head))
	}
	return out
}

// maxAlsoBlocked bounds the other blocked operations a deadlock finding lists: with
// thousands of goroutines stuck, each finding listing every other one was their number
// squared.
const maxAlsoBlocked = 32

// stuckWithTest returns the blocked operations of the deadlock: those of goroutines
// connected to the blocked test goroutine in the wait-for graph (a blocked goroutine waits
// for the holder of the mutex it requests and for the goroutines that used the channels,
// WaitGroup or Cond it waits on), or every blocked operation when the test goroutine is not
// known or not blocked in a recorded operation.
func (r *Result) stuckWithTest(test int32, testKnown bool, all []int32, waits map[int32][]int32) []int32 {
	if !testKnown || r.Goroutines[test].Blocked < 0 || len(all) <= 1 {
		return all
	}
	// the component of the test goroutine, edges taken both ways
	adj := map[int32][]int32{}
	for g, ws := range waits {
		for _, w := range ws {
			adj[g] = append(adj[g], w)
			adj[w] = append(adj[w], g)
		}
	}
	in := map[int32]bool{test: true}
	queue := []int32{test}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for _, h := range adj[g] {
			if !in[h] {
				in[h] = true
				queue = append(queue, h)
			}
		}
	}
	var out []int32
	for _, i := range all {
		if in[r.gOf[i]] {
			out = append(out, i)
		}
	}
	if len(out) <= 1 {
		return all // nothing connects: better all than a lone operation
	}
	return out
}

// testGoroutine returns the goroutine the runtime named as the test's (META testgoid).
func (r *Result) testGoroutine() (int32, bool) {
	id, err := strconv.ParseUint(r.Trace.Meta["testgoid"], 10, 64)
	if err != nil {
		return -1, false
	}
	g, ok := r.gIndex[id]
	return g, ok
}

// waitGraph maps each goroutine blocked in one of the operations all to the goroutines it
// waits for: the holder of the mutex it requests, the users of the channels, WaitGroup or
// Cond it waits on.
func (r *Result) waitGraph(all []int32) map[int32][]int32 {
	waits := map[int32][]int32{}
	users := r.objectUsers(all, false)
	for _, i := range all {
		g := r.gOf[i]
		ev := &r.Trace.Events[i]
		if ev.Kind == trace.KindLock || ev.Kind == trace.KindRLock {
			if h, ok := r.facts.holders[ev.Obj]; ok && r.gOf[h] >= 0 {
				waits[g] = append(waits[g], r.gOf[h])
			}
			for _, h := range r.lockWaitees(i) { // an RWMutex's readers, its pending writers
				if gh := r.gOf[h]; gh >= 0 && !slices.Contains(waits[g], gh) {
					waits[g] = append(waits[g], gh)
				}
			}
			continue
		}
		for _, o := range blockedObjs(ev) {
			for u := range users[o] {
				waits[g] = append(waits[g], u)
			}
		}
	}
	return waits
}

// slowNotStuck reports, for a run killed at its time limit (not by the runtime's own
// deadlock check), that the test was still making progress: the test goroutine was not
// blocked in a recorded operation, or it waited, directly or through other blocked
// goroutines, for a goroutine that was alive and not blocked (running, in a system call,
// sleeping; a build the test waits for, say). A WaitGroup's Wait also waits for the
// goroutines started by those that called Add (the workers that will call Done), and the
// test goroutine for every goroutine it started (the sender of a result not yet sent is
// not a user of the channel yet). Such a run was slow, not stuck.
func (r *Result) slowNotStuck(test int32, blocked []int32, waits map[int32][]int32) bool {
	if r.Trace.Meta["exit"] != "signal" {
		return false
	}
	busy := func(g int32) bool {
		info := r.Goroutines[g]
		if info.Alive && !info.Ended && info.Blocked >= 0 {
			// a wait a pending deadline may end (rule_timerwake.go)
			return r.timerMayWake(int32(info.Blocked))
		}
		return info.Alive && !info.Ended && info.Blocked < 0
	}
	if busy(test) {
		return true
	}
	children := map[uint64][]int32{}
	for g, info := range r.Goroutines {
		children[info.Parent] = append(children[info.Parent], int32(g))
	}
	// also waited for: descendants of the test goroutine and of a WaitGroup's users
	started := map[int32][]int32{}
	for _, i := range blocked {
		g := r.gOf[i]
		var roots []int32
		if g == test {
			roots = append(roots, test)
		}
		if r.Trace.Events[i].Kind == trace.KindWgWait {
			roots = append(roots, waits[g]...)
		}
		visited := map[int32]bool{}
		for len(roots) > 0 { // breadth first; a corrupt trace's parent cycle ends
			var next []int32
			for _, p := range roots {
				for _, c := range children[r.Goroutines[p].ID] {
					if !visited[c] {
						visited[c] = true
						started[g] = append(started[g], c)
						next = append(next, c)
					}
				}
			}
			roots = next
		}
	}
	seen := map[int32]bool{test: true}
	queue := []int32{test}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		for _, w := range slices.Concat(waits[g], started[g]) {
			if seen[w] || w < 0 || int(w) >= len(r.Goroutines) {
				continue
			}
			seen[w] = true
			if busy(w) {
				return true
			}
			queue = append(queue, w)
		}
	}
	return false
}

// objectUsers maps the objects the blocked operations wait on to the goroutines that used
// them anywhere in the trace (making a channel counts only if withMake).
func (r *Result) objectUsers(blocked []int32, withMake bool) map[uint64]map[int32]bool {
	evs := r.Trace.Events
	objs := map[uint64]bool{}
	for _, i := range blocked {
		for _, o := range blockedObjs(&evs[i]) {
			objs[o] = true
		}
	}
	users := map[uint64]map[int32]bool{}
	use := func(o uint64, i int) {
		if objs[o] && r.gOf[i] >= 0 { // an event outside every goroutine (corrupt trace) is no user
			if users[o] == nil {
				users[o] = map[int32]bool{}
			}
			users[o][r.gOf[i]] = true
		}
	}
	for i := range evs {
		if len(objs) == 0 {
			break
		}
		if ev := &evs[i]; ev.Kind == trace.KindSelect {
			for _, c := range ev.Cases {
				use(c.Obj, i)
			}
		} else if ev.Obj != 0 && (withMake || ev.Kind != trace.KindChanMake) {
			use(ev.Obj, i)
		}
	}
	return users
}
