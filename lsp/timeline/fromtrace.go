package timeline

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/goweave/goweave/analysis/trace"
)

// A Mark is a source position of a finding, to be highlighted.
type Mark struct {
	File string
	Line int
	Role string
}

// maxEvents bounds the events drawn: beyond it the page stops being readable.
const maxEvents = 80

// FromTrace builds the timeline of the operations of tr that matter for the marked
// positions: the marked operations, every operation on the same channels, mutexes and
// other objects, and the spawns of the goroutines involved; with the happens-before
// edges between them (send to receive, close to the receive that saw it, unlock to the
// next lock, Done to Wait, spawn to the child's first operation).
func FromTrace(tr *trace.Trace, marks []Mark) *Timeline {
	marked := func(e *trace.Event) (string, bool) {
		p := tr.Position(e.Pos)
		for _, m := range marks {
			if p.Line == m.Line && filepath.Base(p.File) == filepath.Base(m.File) {
				return m.Role, true
			}
		}
		return "", false
	}
	objects := map[uint64]bool{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if _, ok := marked(e); ok && e.Obj != 0 {
			objects[e.Obj] = true
			for _, c := range e.Cases {
				if c.Obj != 0 {
					objects[c.Obj] = true
				}
			}
		}
	}
	involved := func(e *trace.Event) bool {
		if _, ok := marked(e); ok {
			return true
		}
		if objects[e.Obj] && e.Obj != 0 {
			return true
		}
		for _, c := range e.Cases {
			if objects[c.Obj] && c.Obj != 0 {
				return true
			}
		}
		return false
	}

	var picked []*trace.Event
	goroutines := map[uint64]bool{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind == trace.KindSelectCase || e.Kind == trace.KindGoEnd || !involved(e) {
			continue
		}
		picked = append(picked, e)
		goroutines[e.G] = true
	}
	// The spawns of the goroutines involved, from their parents.
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind == trace.KindGoSpawn && goroutines[e.A] {
			picked = append(picked, e)
			goroutines[e.G] = true
		}
	}
	stamp := func(e *trace.Event) uint64 {
		if e.Post != 0 {
			return e.Post
		}
		return e.Pre
	}
	sort.SliceStable(picked, func(i, j int) bool { return stamp(picked[i]) < stamp(picked[j]) })
	t := &Timeline{}
	if len(picked) > maxEvents {
		t.Note = fmt.Sprintf("Only the first %d of %d related operations are shown.", maxEvents, len(picked))
		picked = picked[:maxEvents]
	}

	lane := map[uint64]int{}
	spawnPos := map[uint64]string{}
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.KindGoSpawn {
			spawnPos[e.A] = shortPos(tr.Position(e.Pos))
		}
	}
	index := map[*trace.Event]int{}
	for i, e := range picked {
		if _, ok := lane[e.G]; !ok {
			lane[e.G] = len(t.Lanes)
			label := fmt.Sprintf("goroutine %d", e.G)
			if p, ok := spawnPos[e.G]; ok {
				label += " (go at " + p + ")"
			}
			t.Lanes = append(t.Lanes, Lane{Label: label})
		}
		index[e] = i
		role, hl := marked(e)
		label := opName(e)
		if hl && role != "" {
			label = role
		}
		var detail string
		if e.Kind == trace.KindSelect {
			var taken string
			if taken, detail = selectTaken(tr, e); taken != "" {
				label += ": " + taken
			}
		}
		t.Events = append(t.Events, Event{Lane: lane[e.G], Label: label, Detail: detail, Pos: shortPos(tr.Position(e.Pos)), Highlight: hl, Blocked: !e.Completed()})
	}
	t.Edges = edges(picked)
	return t
}

// edges finds the happens-before edges among events, which are in stamp order.
func edges(events []*trace.Event) []Edge {
	var out []Edge
	type chanSeq struct{ obj, seq uint64 }
	sends := map[chanSeq]int{}
	closes := map[uint64]int{}
	lastUnlock := map[uint64]int{}
	wgDones := map[uint64][]int{}
	firstOf := map[uint64]int{}
	spawnOf := map[uint64]int{}
	for i, e := range events {
		if _, ok := firstOf[e.G]; !ok && e.Kind != trace.KindGoSpawn {
			firstOf[e.G] = i
		}
		// The channel operation a select performed, if any.
		kind, obj, seq, flags := e.Kind, e.Obj, e.A, e.Flags
		if e.Kind == trace.KindSelect && e.A != trace.SelectDefault && int(e.A) < len(e.Cases) {
			c := e.Cases[e.A]
			kind, obj, seq = trace.KindChanRecv, c.Obj, e.B
			if c.Send {
				kind = trace.KindChanSend
			}
		}
		switch kind {
		case trace.KindGoSpawn:
			spawnOf[e.A] = i
		case trace.KindChanSend:
			if seq != 0 {
				sends[chanSeq{obj, seq}] = i
			}
		case trace.KindChanRecv:
			if flags.Has(trace.FlagClosed) {
				if j, ok := closes[obj]; ok {
					out = append(out, Edge{From: j, To: i, Label: "closed"})
				}
			} else if j, ok := sends[chanSeq{obj, seq}]; ok && seq != 0 {
				out = append(out, Edge{From: j, To: i, Label: "value"})
			}
		case trace.KindChanClose:
			closes[obj] = i
		case trace.KindUnlock, trace.KindRUnlock:
			lastUnlock[obj] = i
		case trace.KindLock, trace.KindRLock, trace.KindTryLock, trace.KindTryRLock:
			if j, ok := lastUnlock[obj]; ok && e.Completed() {
				out = append(out, Edge{From: j, To: i, Label: "unlock→lock"})
				delete(lastUnlock, obj)
			}
		case trace.KindWgDone, trace.KindWgAdd:
			wgDones[obj] = append(wgDones[obj], i)
		case trace.KindWgWait:
			if e.Completed() {
				for _, j := range wgDones[obj] {
					out = append(out, Edge{From: j, To: i, Label: "wait"})
				}
				wgDones[obj] = nil
			}
		}
	}
	for g, s := range spawnOf {
		if f, ok := firstOf[g]; ok && f > s {
			out = append(out, Edge{From: s, To: f, Label: "go"})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

func opName(e *trace.Event) string {
	switch e.Kind {
	case trace.KindChanSend:
		return "send"
	case trace.KindChanRecv:
		if e.Flags.Has(trace.FlagClosed) {
			return "recv (closed)"
		}
		return "recv"
	case trace.KindChanClose:
		return "close"
	case trace.KindChanMake:
		return "make"
	case trace.KindSelect:
		return "select"
	case trace.KindGoSpawn:
		return "go"
	case trace.KindWgAdd:
		return "Add"
	case trace.KindWgDone:
		return "Done"
	case trace.KindWgWait:
		return "Wait"
	case trace.KindOnceDo:
		return "Once.Do"
	}
	return e.Kind.String()
}

func shortPos(p trace.Position) string {
	if p.File == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line)
}
