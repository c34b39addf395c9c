// Package timeline renders the timeline of a recorded run as a self-contained HTML page:
// one lane per goroutine, operations in their global order, the operations of a finding
// highlighted, and the happens-before edges that matter drawn between lanes.
//
// FromTrace builds a Timeline from a recorded trace (analysis/trace); Render draws one.
package timeline

import (
	"fmt"
	"html/template"
	"io"
)

// Timeline is what one page shows.
type Timeline struct {
	Title    string
	Subtitle string
	Note     string // shown under the picture, e.g. why some information is missing
	Lanes    []Lane
	Events   []Event // in global order
	Edges    []Edge
}

// A Lane is one goroutine.
type Lane struct {
	Label string // "goroutine 7 (spawned at x_test.go:21)"
}

// An Event is one operation on a lane.
type Event struct {
	Lane      int    // index into Timeline.Lanes
	Label     string // "send", "close", "Lock", "select: case 2"
	Detail    string // shown on hover: the select case as written, "case 2 `out <- v`, line 34"
	Pos       string // "file.go:31:5"
	Highlight bool   // an operation of the finding
	Blocked   bool   // never completed
}

// An Edge is a happens-before edge between two events (indices into Events).
type Edge struct {
	From, To int
	Label    string
}

// Validate reports the first inconsistency in t.
func (t *Timeline) Validate() error {
	for i, e := range t.Events {
		if e.Lane < 0 || e.Lane >= len(t.Lanes) {
			return fmt.Errorf("event %d is on lane %d of %d", i, e.Lane, len(t.Lanes))
		}
	}
	for i, e := range t.Edges {
		if e.From < 0 || e.From >= len(t.Events) || e.To < 0 || e.To >= len(t.Events) {
			return fmt.Errorf("edge %d joins events %d and %d of %d", i, e.From, e.To, len(t.Events))
		}
	}
	return nil
}

// Layout constants of the picture, in SVG pixels.
const (
	laneHeight  = 70
	labelWidth  = 260
	eventWidth  = 110
	topMargin   = 30
	eventRadius = 9
)

type drawnLane struct {
	Y     int
	Label string
}

type drawnEvent struct {
	X, Y               int
	Label, Detail, Pos string
	Highlight, Blocked bool
}

type drawnEdge struct {
	X1, Y1, X2, Y2, MX, MY int
	Label                  string
}

type page struct {
	*Timeline
	Width, Height int
	DrawnLanes    []drawnLane
	DrawnEvents   []drawnEvent
	DrawnEdges    []drawnEdge
}

// Render writes t as a self-contained HTML page (no scripts, no external resources).
func Render(w io.Writer, t *Timeline) error {
	if err := t.Validate(); err != nil {
		return err
	}
	p := page{Timeline: t}
	p.Width = labelWidth + eventWidth*(len(t.Events)+1)
	p.Height = topMargin*2 + laneHeight*max(len(t.Lanes), 1)
	for i, l := range t.Lanes {
		p.DrawnLanes = append(p.DrawnLanes, drawnLane{Y: topMargin + i*laneHeight + laneHeight/2, Label: l.Label})
	}
	for i, e := range t.Events {
		p.DrawnEvents = append(p.DrawnEvents, drawnEvent{
			X: labelWidth + eventWidth*i + eventWidth/2, Y: p.DrawnLanes[e.Lane].Y,
			Label: e.Label, Detail: e.Detail, Pos: e.Pos, Highlight: e.Highlight, Blocked: e.Blocked,
		})
	}
	for _, e := range t.Edges {
		a, b := p.DrawnEvents[e.From], p.DrawnEvents[e.To]
		p.DrawnEdges = append(p.DrawnEdges, drawnEdge{X1: a.X, Y1: a.Y, X2: b.X, Y2: b.Y,
			MX: (a.X + b.X) / 2, MY: (a.Y+b.Y)/2 - 25, Label: e.Label})
	}
	return pageTemplate.Execute(w, p)
}

var pageTemplate = template.Must(template.New("timeline").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin-bottom: 0.2em; } .sub { color: #555; margin-top: 0; }
svg { border: 1px solid #ddd; background: #fcfcfc; }
.lane { stroke: #bbb; stroke-width: 1; } .lanelabel { font-size: 12px; fill: #333; }
.ev { fill: #fff; stroke: #555; stroke-width: 1.5; } .ev.hl { fill: #e53935; stroke: #b71c1c; }
.ev.blocked { stroke-dasharray: 3 2; } .evlabel { font-size: 11px; text-anchor: middle; }
.evpos { font-size: 9px; fill: #777; text-anchor: middle; }
.edge { fill: none; stroke: #1e88e5; stroke-width: 1.5; marker-end: url(#arrow); }
.edgelabel { font-size: 10px; fill: #1e88e5; text-anchor: middle; }
.note { color: #555; font-size: 0.9em; }
</style></head><body>
<h1>{{.Title}}</h1><p class="sub">{{.Subtitle}}</p>
<svg width="{{.Width}}" height="{{.Height}}" xmlns="http://www.w3.org/2000/svg">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#1e88e5"/></marker></defs>
{{range .DrawnLanes}}<line class="lane" x1="{{$.LabelWidth}}" y1="{{.Y}}" x2="{{$.Width}}" y2="{{.Y}}"/><text class="lanelabel" x="8" y="{{.Y}}" dy="4">{{.Label}}</text>
{{end}}{{range .DrawnEdges}}<path class="edge" d="M {{.X1}} {{.Y1}} Q {{.MX}} {{.MY}} {{.X2}} {{.Y2}}"/><text class="edgelabel" x="{{.MX}}" y="{{.MY}}">{{.Label}}</text>
{{end}}{{range .DrawnEvents}}<g><title>{{.Label}} at {{.Pos}}{{if .Detail}}: {{.Detail}}{{end}}</title><circle class="ev{{if .Highlight}} hl{{end}}{{if .Blocked}} blocked{{end}}" cx="{{.X}}" cy="{{.Y}}" r="{{$.Radius}}"/><text class="evlabel" x="{{.X}}" y="{{.Y}}" dy="-14">{{.Label}}</text><text class="evpos" x="{{.X}}" y="{{.Y}}" dy="22">{{.Pos}}</text></g>
{{end}}</svg>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
</body></html>
`))

// LabelWidth and Radius expose layout constants to the template.
func (page) LabelWidth() int { return labelWidth }
func (page) Radius() int     { return eventRadius }
