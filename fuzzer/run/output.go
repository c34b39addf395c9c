package run

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

// cappedOutput keeps the head and the tail of a process's output, so a test that floods its
// output costs bounded memory, and notes the status markers of every complete line as it
// passes (the marker that decides the status may sit in the dropped middle).
type cappedOutput struct {
	mu      sync.Mutex
	max     int // bytes kept at each end
	head    []byte
	tail    []byte // ring: the last max bytes once head is full
	tailPos int
	dropped int64
	line    []byte // the current incomplete line, capped
	markers outputMarkers
}

// outputMarkers are the lines that tell how a test process ended.
type outputMarkers struct {
	Pass, Fail, Skip bool   // --- PASS / FAIL / SKIP lines
	Panic            bool   // a line starting with "panic: "
	PanicMessage     string // the first such line, without the prefix
	Deadlock         bool   // "fatal error: all goroutines are asleep - deadlock!", or the patched runtime's "fatal error: goweave: deadlock: ..."
	Fatal            string // the first "fatal error: ..." line, without the prefix
	DataRace         bool   // "WARNING: DATA RACE"
	NoTests          bool   // "testing: warning: no tests to run"
	// Races are the race detector's reports, the lines after each "WARNING: DATA RACE" up
	// to the closing "==================", capped in number and length.
	Races  [][]string
	inRace bool
}

const (
	maxRaceReports = 32
	maxRaceLines   = 200
)

const maxMarkerLine = 512

func newCappedOutput(max int) *cappedOutput { return &cappedOutput{max: max} }

func (c *cappedOutput) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scan(p)
	rest := p
	if room := c.max - len(c.head); room > 0 {
		n := min(room, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	for len(rest) > 0 {
		if len(c.tail) < c.max {
			n := min(c.max-len(c.tail), len(rest))
			c.tail = append(c.tail, rest[:n]...)
			rest = rest[n:]
			continue
		}
		n := min(c.max-c.tailPos, len(rest))
		c.dropped += int64(n)
		copy(c.tail[c.tailPos:], rest[:n])
		c.tailPos = (c.tailPos + n) % c.max
		rest = rest[n:]
	}
	return len(p), nil
}

func (c *cappedOutput) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if room := maxMarkerLine - len(c.line); room > 0 {
				c.line = append(c.line, p[:min(room, len(p))]...)
			}
			return
		}
		if room := maxMarkerLine - len(c.line); room > 0 {
			c.line = append(c.line, p[:min(room, i)]...)
		}
		c.markers.note(c.line)
		c.line = c.line[:0]
		p = p[i+1:]
	}
}

func (m *outputMarkers) note(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if m.inRace {
		if bytes.HasPrefix(line, []byte("==================")) {
			m.inRace = false
			return
		}
		if r := m.Races[len(m.Races)-1]; len(r) < maxRaceLines {
			m.Races[len(m.Races)-1] = append(r, string(line))
		}
		return
	}
	trimmed := bytes.TrimLeft(line, " \t")
	switch {
	case bytes.HasPrefix(trimmed, []byte("--- PASS: ")):
		m.Pass = true
	case bytes.HasPrefix(trimmed, []byte("--- FAIL: ")):
		m.Fail = true
	case bytes.HasPrefix(trimmed, []byte("--- SKIP: ")):
		m.Skip = true
	case bytes.HasPrefix(line, []byte("panic: ")):
		if !m.Panic {
			m.PanicMessage = string(bytes.TrimPrefix(line, []byte("panic: ")))
		}
		m.Panic = true
	case bytes.HasPrefix(line, []byte("fatal error: ")) && m.Fatal == "":
		m.Fatal = string(bytes.TrimPrefix(line, []byte("fatal error: ")))
		// The runtime's own check, or the patched runtime's stuck check: a run found stuck
		// by its state (every goroutine blocked, a lock cycle, the test goroutine proven
		// leaked), which ends itself with SIGQUIT after this line.
		m.Deadlock = strings.HasPrefix(m.Fatal, "all goroutines are asleep") || strings.HasPrefix(m.Fatal, "goweave: deadlock: ")
	case bytes.Equal(line, []byte("WARNING: DATA RACE")):
		m.DataRace = true
		if len(m.Races) < maxRaceReports {
			m.Races = append(m.Races, nil)
			m.inRace = true
		}
	case bytes.HasPrefix(line, []byte("testing: warning: no tests to run")):
		m.NoTests = true
	}
}

// finish accounts for a last line without a newline and returns the kept output, with a
// note where bytes were dropped.
// reported tells whether the test has printed its verdict (--- PASS, FAIL or SKIP): what
// the process does after it is its exit.
func (c *cappedOutput) reported() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.markers.Pass || c.markers.Fail || c.markers.Skip
}

func (c *cappedOutput) finish() (string, outputMarkers) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.line) > 0 {
		c.markers.note(c.line)
		c.line = nil
	}
	var b bytes.Buffer
	b.Write(c.head)
	if c.dropped > 0 {
		fmt.Fprintf(&b, "\n... [goweave: %d bytes of output dropped] ...\n", c.dropped)
	}
	b.Write(c.tail[c.tailPos:])
	b.Write(c.tail[:c.tailPos])
	return b.String(), c.markers
}
