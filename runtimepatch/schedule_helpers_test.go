package runtimepatch

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// Helpers of the schedule-control tests: the testdata/replay binary, a
// schedule writer (the format's encoder lives in fuzzer/schedule, which
// runtimepatch must not import) and logical goroutine ids and operation
// names computed from a trace as FORMAT.md defines them.

var (
	replayOnce sync.Once
	replayBin  string
	replayErr  error
)

func buildReplay(t testing.TB) string {
	t.Helper()
	replayOnce.Do(func() { replayBin, replayErr = buildTestdata(t, "replay", filepath.Join(workDir, "replay.test")) })
	if replayErr != nil {
		failBuild(t, replayErr)
	}
	return replayBin
}

// schedText builds a schedule file.
type schedText struct {
	files   []string
	fileNum map[string]int
	selects []string
	delays  []string
	window  int // order window in ms
	ops     []string
}

// pos turns "file:line" into the format's "<n>:<line>", declaring the file.
func (s *schedText) pos(fileLine string) string {
	i := strings.LastIndexByte(fileLine, ':')
	file, line := fileLine[:i], fileLine[i+1:]
	if s.fileNum == nil {
		s.fileNum = make(map[string]int)
	}
	n, ok := s.fileNum[file]
	if !ok {
		s.files = append(s.files, file)
		n = len(s.files)
		s.fileNum[file] = n
	}
	return fmt.Sprintf("%d:%s", n, line)
}

// op adds an op line: the k-th operation of goroutine gid at fileLine, of kind.
func (s *schedText) op(gid string, kind trace.Kind, fileLine string, k int) {
	s.ops = append(s.ops, fmt.Sprintf("op %s %d %s %d", gid, kind, s.pos(fileLine), k))
}

func (s *schedText) delay(gid string, kind trace.Kind, fileLine string, k, ms int, untilGid string, untilKind trace.Kind, untilPos string, untilK int) {
	s.delays = append(s.delays, fmt.Sprintf("delay %s %d %s %d %d %s %d %s %d",
		gid, kind, s.pos(fileLine), k, ms, untilGid, untilKind, s.pos(untilPos), untilK))
}

func (s *schedText) selectPref(fileLine string, ms int, cases ...int) {
	line := fmt.Sprintf("select %s %d", s.pos(fileLine), ms)
	for _, c := range cases {
		line += " " + strconv.Itoa(c)
	}
	s.selects = append(s.selects, line)
}

func (s *schedText) String() string {
	var b strings.Builder
	b.WriteString("goweave-schedule 1\n")
	for i, f := range s.files {
		fmt.Fprintf(&b, "file %d %s\n", i+1, f)
	}
	for _, l := range s.selects {
		b.WriteString(l + "\n")
	}
	for _, l := range s.delays {
		b.WriteString(l + "\n")
	}
	if len(s.ops) > 0 {
		fmt.Fprintf(&b, "order %d\n", s.window)
		for _, l := range s.ops {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("end\n")
	return b.String()
}

// writeSchedule writes text to a file in t's temp dir and returns the
// environment entry that makes a run follow it.
func writeSchedule(t testing.TB, text string) (env, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "run.sched")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return EnvSchedule + "=" + path, path
}

// runSchedule runs test name of the replay binary under schedule text.
func runSchedule(t testing.TB, name, text string, env ...string) result {
	t.Helper()
	e, _ := writeSchedule(t, text)
	return record(t, buildReplay(t), name, nil, append(env, e)...)
}

// logicalIDs names the goroutines of tr as FORMAT.md does: "0" for the
// first goroutine, "1" for META testgoid, parent.k for the k-th spawn.
func logicalIDs(t testing.TB, tr *trace.Trace) map[uint64]string {
	t.Helper()
	test, err := strconv.ParseUint(tr.Meta["testgoid"], 10, 64)
	if err != nil {
		t.Fatalf("META testgoid = %q: %v", tr.Meta["testgoid"], err)
	}
	ids := map[uint64]string{1: "0"}
	spawns := make(map[uint64]int)
	for _, e := range tr.Events {
		if e.Kind != trace.KindGoSpawn {
			continue
		}
		parent, ok := ids[e.G]
		if !ok || e.G == 0 {
			continue
		}
		spawns[e.G]++
		if e.A == test {
			ids[e.A] = "1"
		} else {
			ids[e.A] = fmt.Sprintf("%s.%d", parent, spawns[e.G])
		}
	}
	return ids
}

// opNames names every event of tr that has a user position as
// "gid kind file:line#k" (k counted as FORMAT.md says); events of
// goroutines without a logical id get "".
func opNames(t testing.TB, tr *trace.Trace) []string {
	ids := logicalIDs(t, tr)
	names := make([]string, len(tr.Events))
	count := make(map[string]int)
	for i, e := range tr.Events {
		if e.Pos == 0 || e.Kind == trace.KindSelectCase || e.Kind == trace.KindGoEnd || e.Flags.Has(trace.FlagInternal) {
			continue
		}
		gid, ok := ids[e.G]
		if !ok {
			continue
		}
		key := gid + " " + tr.Position(e.Pos).String()
		count[key]++
		names[i] = fmt.Sprintf("%s %d %s#%d", gid, e.Kind, tr.Position(e.Pos), count[key])
	}
	return names
}

func orderable(k trace.Kind) bool {
	switch k {
	case trace.KindChanSend, trace.KindChanRecv, trace.KindChanClose, trace.KindSelect,
		trace.KindLock, trace.KindUnlock, trace.KindTryLock, trace.KindRLock, trace.KindRUnlock, trace.KindTryRLock,
		trace.KindOnceDo, trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait,
		trace.KindCondWait, trace.KindCondSignal, trace.KindCondBroadcast:
		return true
	}
	return false
}

// replaySchedule turns a recorded run into an order that admits every
// completed orderable operation of a goroutine with a logical id in the
// order the operations completed (post stamps), as fuzzer/mutate.Replay
// does: a Lock is then admitted when it is its turn to acquire the mutex,
// not when it started waiting, so the mutex's own wake-up order cannot
// contradict the recording.
func replaySchedule(t testing.TB, tr *trace.Trace, windowMS int) *schedText {
	names := opNames(t, tr)
	var lin []int
	for i, name := range names {
		if e := tr.Events[i]; name != "" && orderable(e.Kind) && e.Post != 0 {
			lin = append(lin, i)
		}
	}
	// Ordered by when each took effect: its completion, except for the Once.Do that ran f,
	// which took the Once when it started (a Do that found the Once done while f still ran
	// completes before it; admitted first, it would run f). The fuzzer orders the same way.
	effect := func(e *trace.Event) uint64 {
		if e.Kind == trace.KindOnceDo && e.Flags.Has(trace.FlagSuccess) {
			return e.Pre
		}
		return e.Post
	}
	sort.SliceStable(lin, func(a, b int) bool { return effect(&tr.Events[lin[a]]) < effect(&tr.Events[lin[b]]) })
	s := &schedText{window: windowMS}
	for _, i := range lin {
		gid, rest, _ := strings.Cut(names[i], " ")
		ks, posk, _ := strings.Cut(rest, " ")
		kind, _ := strconv.Atoi(ks)
		j := strings.LastIndexByte(posk, '#')
		k, _ := strconv.Atoi(posk[j+1:])
		s.op(gid, trace.Kind(kind), posk[:j], k)
	}
	return s
}

// objectOrders summarizes, per mutex, channel and Once, the order of the
// operations on it, naming objects and operations by logical ids so that
// two runs can be compared: mutex = its Locks by acquisition; channel = the
// partner of each completed send (by sequence number); Once = the Do that
// ran f. An object is named by the least name of the operations on it.
func objectOrders(t testing.TB, tr *trace.Trace) map[string]string {
	names := opNames(t, tr)
	type obj struct {
		first string
		locks []trace.Event
		sends map[uint64]string
		recvs map[uint64]string
		once  string
		kind  string
	}
	objs := make(map[uint64]*obj)
	get := func(e trace.Event, kind string) *obj {
		o := objs[e.Obj]
		if o == nil {
			o = &obj{first: names[e.Index], kind: kind, sends: map[uint64]string{}, recvs: map[uint64]string{}}
			objs[e.Obj] = o
		}
		// Named by its least operation name: independent of the order.
		o.first = min(o.first, names[e.Index])
		return o
	}
	for _, e := range tr.Events {
		if e.Obj == 0 || names[e.Index] == "" {
			continue
		}
		switch e.Kind {
		case trace.KindChanMake:
			get(e, "chan")
		case trace.KindLock:
			o := get(e, "mutex")
			o.locks = append(o.locks, e)
		case trace.KindChanSend:
			if e.A != 0 {
				get(e, "chan").sends[e.A] = names[e.Index]
			}
		case trace.KindChanRecv:
			if e.A != 0 {
				get(e, "chan").recvs[e.A] = names[e.Index]
			}
		case trace.KindOnceDo:
			o := get(e, "once")
			if e.Flags.Has(trace.FlagSuccess) {
				o.once = names[e.Index]
			}
		}
	}
	out := make(map[string]string)
	for _, o := range objs {
		var parts []string
		switch o.kind {
		case "mutex":
			sort.Slice(o.locks, func(i, j int) bool { return o.locks[i].Post < o.locks[j].Post })
			for _, l := range o.locks {
				parts = append(parts, names[l.Index])
			}
		case "chan":
			for seq := uint64(1); o.sends[seq] != "" || o.recvs[seq] != ""; seq++ {
				parts = append(parts, o.sends[seq]+" -> "+o.recvs[seq])
			}
		case "once":
			parts = append(parts, o.once)
		}
		out[o.kind+" "+o.first] = strings.Join(parts, "; ")
	}
	return out
}

// meta returns META key of r's trace as an int (-1 when absent).
func metaInt(r result, key string) int {
	v, err := strconv.Atoi(r.tr.Meta[key])
	if err != nil {
		return -1
	}
	return v
}

// oneM returns the single event of kind k at marker name of m.
func oneM(t testing.TB, tr *trace.Trace, k trace.Kind, name string, m map[string]string) trace.Event {
	t.Helper()
	pos, ok := m[name]
	if !ok {
		t.Fatalf("no marker @%s in testdata", name)
	}
	var evs []trace.Event
	for _, e := range tr.Events {
		if e.Kind == k && tr.Position(e.Pos).String() == pos {
			evs = append(evs, e)
		}
	}
	if len(evs) != 1 {
		t.Fatalf("%d %s events at @%s, want 1\n%s", len(evs), k, name, dump(tr))
	}
	return evs[0]
}
