package timeline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// sendCloseTrace: goroutine 1 makes c, spawns 2, which sends; 1 receives the value,
// closes c, and receives again, seeing it closed. A mutex on another object is noise.
func sendCloseTrace() *trace.Trace {
	const (
		posMake = iota + 1
		posGo
		posSend
		posRecv
		posClose
		posRecv2
		posLock
	)
	positions := make([]trace.Position, 7)
	for i, line := range []int{10, 11, 12, 14, 15, 16, 30} {
		positions[i] = trace.Position{File: "/m/x_test.go", Line: line}
	}
	ev := []trace.Event{
		{Kind: trace.KindChanMake, Pos: posMake, G: 1, Obj: 5, Pre: 1, Post: 1},
		{Kind: trace.KindGoSpawn, Pos: posGo, G: 1, A: 2, Pre: 2, Post: 2},
		{Kind: trace.KindChanSend, Pos: posSend, G: 2, Obj: 5, Pre: 3, Post: 4, A: 1},
		{Kind: trace.KindChanRecv, Pos: posRecv, G: 1, Obj: 5, Pre: 5, Post: 6, A: 1},
		{Kind: trace.KindChanClose, Pos: posClose, G: 1, Obj: 5, Pre: 7, Post: 7},
		{Kind: trace.KindChanRecv, Pos: posRecv2, G: 1, Obj: 5, Pre: 8, Post: 8, Flags: trace.FlagClosed},
		{Kind: trace.KindLock, Pos: posLock, G: 3, Obj: 9, Pre: 9, Post: 9},
	}
	for i := range ev {
		ev[i].Index = i
	}
	return &trace.Trace{Events: ev, Positions: positions}
}

func TestFromTrace(t *testing.T) {
	tl := FromTrace(sendCloseTrace(), []Mark{{File: "/elsewhere/x_test.go", Line: 12, Role: "send"}, {File: "x_test.go", Line: 15, Role: "close"}})
	var labels []string
	for _, e := range tl.Events {
		l := e.Label
		if e.Highlight {
			l += "*"
		}
		labels = append(labels, l)
	}
	if got := strings.Join(labels, " "); got != "make go send* recv close* recv (closed)" {
		t.Errorf("events = %q", got)
	}
	if len(tl.Lanes) != 2 || tl.Lanes[1].Label != "goroutine 2 (go at x_test.go:11)" {
		t.Errorf("lanes = %+v", tl.Lanes)
	}
	var edges []string
	for _, e := range tl.Edges {
		edges = append(edges, tl.Events[e.From].Label+"->"+tl.Events[e.To].Label+":"+e.Label)
	}
	if got := strings.Join(edges, " "); got != "go->send:go send->recv:value close->recv (closed):closed" {
		t.Errorf("edges = %q", got)
	}
}

func TestRender(t *testing.T) {
	tl := FromTrace(sendCloseTrace(), []Mark{{File: "x_test.go", Line: 12, Role: "send"}})
	tl.Title = "send-on-closed in <TestX>"
	var buf bytes.Buffer
	if err := Render(&buf, tl); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"<!DOCTYPE html>", "send-on-closed in &lt;TestX&gt;", `class="ev hl"`, "goroutine 2 (go at x_test.go:11)", `class="edge"`, "x_test.go:15"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http://") && !strings.Contains(page, "http://www.w3.org/2000/svg") {
		t.Errorf("page is not self-contained")
	}
	bad := &Timeline{Lanes: []Lane{{}}, Events: []Event{{Lane: 3}}}
	if err := Render(&buf, bad); err == nil {
		t.Errorf("an event on a missing lane rendered")
	}
}
