package schedule

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// SyntaxError reports where a schedule file breaks the format.
type SyntaxError struct {
	Line int // 1-based; 0 for problems of the whole file
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "schedule: " + e.Msg
	}
	return fmt.Sprintf("schedule: line %d: %s", e.Line, e.Msg)
}

// ReadFile decodes the schedule file at path.
func ReadFile(path string) (*Schedule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Decode reads a whole schedule from r.
func Decode(r io.Reader) (*Schedule, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	return Unmarshal(b)
}

// Unmarshal decodes a schedule file. It accepts exactly the grammar of FORMAT.md, which is
// also what the runtime's parser accepts, and returns a *SyntaxError naming the first
// offending line otherwise.
func Unmarshal(b []byte) (*Schedule, error) {
	if len(b) > maxFileSize {
		return nil, &SyntaxError{Msg: fmt.Sprintf("file larger than the format limit of %d bytes", maxFileSize)}
	}
	d := decoder{files: []string{""}}
	if err := d.run(b); err != nil {
		return nil, err
	}
	return &d.s, nil
}

// Sections in the order the grammar requires them.
const (
	secHeader = iota
	secFiles
	secSelects
	secDelays
	secOrder
	secEnd
)

type decoder struct {
	s       Schedule
	files   []string // files[n] is file number n; files[0] unused
	line    int
	section int
	seen    map[Pos]bool
}

func (d *decoder) errf(format string, args ...any) error {
	return &SyntaxError{Line: d.line, Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) run(b []byte) error {
	if len(b) == 0 {
		return &SyntaxError{Msg: "empty file (want the header line \"goweave-schedule 1\")"}
	}
	for len(b) > 0 {
		d.line++
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return d.errf("line does not end with a newline (truncated file?)")
		}
		line := string(b[:nl])
		b = b[nl+1:]
		if d.section == secEnd {
			return d.errf("data after the end line")
		}
		if err := d.parseLine(line); err != nil {
			return err
		}
	}
	if d.section != secEnd {
		return &SyntaxError{Line: d.line, Msg: "missing the end line (truncated file?)"}
	}
	return nil
}

func (d *decoder) parseLine(line string) error {
	if strings.IndexByte(line, '\r') >= 0 {
		return d.errf("carriage return in line (lines end with a single LF)")
	}
	if d.section == secHeader {
		if line != "goweave-schedule 1" {
			if strings.HasPrefix(line, "goweave-schedule ") {
				return d.errf("unsupported schedule version %q (this goweave reads version 1)", strings.TrimPrefix(line, "goweave-schedule "))
			}
			return d.errf("not a goweave schedule (want the header line \"goweave-schedule 1\")")
		}
		d.section = secFiles
		return nil
	}
	if strings.HasPrefix(line, "#") {
		return nil
	}
	if line == "" {
		return d.errf("empty line")
	}
	if strings.HasPrefix(line, "file ") {
		return d.fileLine(line[len("file "):])
	}
	fields := strings.Split(line, " ")
	for _, f := range fields {
		if f == "" {
			return d.errf("tokens must be separated by exactly one space")
		}
	}
	switch fields[0] {
	case "select":
		return d.selectLine(fields[1:])
	case "delay":
		return d.delayLine(fields[1:])
	case "order":
		return d.orderLine(fields[1:])
	case "op":
		return d.opLine(fields[1:])
	case "end":
		if len(fields) != 1 {
			return d.errf("end takes no arguments")
		}
		if d.s.Order != nil && len(d.s.Order.Ops) == 0 {
			return d.errf("order section without op lines")
		}
		d.section = secEnd
		return nil
	}
	return d.errf("unknown line type %q (want file, select, delay, order, op or end)", fields[0])
}

// enter moves to section sec, refusing to go back to an earlier one.
func (d *decoder) enter(sec int, what string) error {
	if d.section > sec {
		return d.errf("%s line after a later section (order: file, select, delay, order/op, end)", what)
	}
	d.section = sec
	return nil
}

func (d *decoder) fileLine(rest string) error {
	if err := d.enter(secFiles, "file"); err != nil {
		return err
	}
	sp := strings.IndexByte(rest, ' ')
	if sp < 0 {
		return d.errf("file line wants a number and a path")
	}
	n, err := parseUint(rest[:sp])
	if err != nil {
		return d.errf("file number: %v", err)
	}
	if n != len(d.files) {
		return d.errf("file number %d out of sequence (want %d)", n, len(d.files))
	}
	if n > maxFiles {
		return d.errf("more than %d files", maxFiles)
	}
	path := rest[sp+1:]
	if path == "" {
		return d.errf("file %d has an empty path", n)
	}
	if len(path) > maxPathLen {
		return d.errf("path of %d bytes, at most %d allowed", len(path), maxPathLen)
	}
	d.files = append(d.files, path)
	return nil
}

func (d *decoder) selectLine(f []string) error {
	if err := d.enter(secSelects, "select"); err != nil {
		return err
	}
	if len(f) < 3 {
		return d.errf("select wants a position, a window and at least one case")
	}
	if len(f)-2 > maxSelectCases {
		return d.errf("more than %d preferred cases", maxSelectCases)
	}
	p, err := d.pos(f[0])
	if err != nil {
		return err
	}
	if d.seen == nil {
		d.seen = make(map[Pos]bool)
	}
	if d.seen[p] {
		return d.errf("second select line for %s", p)
	}
	d.seen[p] = true
	w, err := d.window(f[1])
	if err != nil {
		return err
	}
	cases := make([]int, 0, len(f)-2)
	for _, c := range f[2:] {
		switch c {
		case "-1":
			cases = append(cases, CaseDefault)
		case "-2":
			cases = append(cases, CaseFree)
		default:
			n, err := parseUint(c)
			if err != nil {
				return d.errf("case: %v (want a case index, -1 for default or -2 for none)", err)
			}
			cases = append(cases, n)
		}
	}
	d.s.Selects = append(d.s.Selects, SelectPreference{Pos: p, Window: w, Cases: cases})
	return nil
}

func (d *decoder) delayLine(f []string) error {
	if err := d.enter(secDelays, "delay"); err != nil {
		return err
	}
	if len(f) != 9 {
		return d.errf("delay wants 9 fields (gid kind pos k ms gid kind pos k), got %d", len(f))
	}
	op, err := d.op(f[0:4])
	if err != nil {
		return err
	}
	w, err := d.window(f[4])
	if err != nil {
		return err
	}
	until, err := d.op(f[5:9])
	if err != nil {
		return err
	}
	d.s.Delays = append(d.s.Delays, Delay{Op: op, Until: until, Window: w})
	return nil
}

func (d *decoder) orderLine(f []string) error {
	if d.s.Order != nil {
		return d.errf("second order line")
	}
	if err := d.enter(secOrder, "order"); err != nil {
		return err
	}
	if len(f) != 1 {
		return d.errf("order wants one field, the window in milliseconds")
	}
	w, err := d.window(f[0])
	if err != nil {
		return err
	}
	d.s.Order = &Order{Window: w}
	return nil
}

func (d *decoder) opLine(f []string) error {
	if d.s.Order == nil || d.section != secOrder {
		return d.errf("op line outside an order section")
	}
	if len(f) != 4 {
		return d.errf("op wants 4 fields (gid kind pos k), got %d", len(f))
	}
	if len(d.s.Order.Ops) == maxOps {
		return d.errf("more than %d ops", maxOps)
	}
	op, err := d.op(f)
	if err != nil {
		return err
	}
	d.s.Order.Ops = append(d.s.Order.Ops, op)
	return nil
}

func (d *decoder) op(f []string) (OpID, error) {
	g := GoID(f[0])
	if err := g.Validate(); err != nil {
		return OpID{}, d.errf("%v", err)
	}
	k, err := parseUint(f[1])
	if err != nil {
		return OpID{}, d.errf("kind: %v", err)
	}
	if k > 255 || !Nameable(trace.Kind(k)) {
		return OpID{}, d.errf("kind %d cannot be scheduled (orderable kinds: 4-7, 10-15, 20, 30-32, 40-42, 70-71; atomics 50-52)", k)
	}
	p, err := d.pos(f[2])
	if err != nil {
		return OpID{}, err
	}
	n, err := parseUint(f[3])
	if err != nil {
		return OpID{}, d.errf("occurrence: %v", err)
	}
	if n == 0 {
		return OpID{}, d.errf("occurrence 0 (occurrences are 1-based)")
	}
	return OpID{G: g, Kind: trace.Kind(k), Pos: p, N: n}, nil
}

func (d *decoder) pos(tok string) (Pos, error) {
	colon := strings.IndexByte(tok, ':')
	if colon < 0 {
		return Pos{}, d.errf("position %q is not file:line", tok)
	}
	fn, err := parseUint(tok[:colon])
	if err != nil {
		return Pos{}, d.errf("position %q: file: %v", tok, err)
	}
	if fn == 0 || fn >= len(d.files) {
		return Pos{}, d.errf("position %q names file %d, which no file line declared", tok, fn)
	}
	line, err := parseUint(tok[colon+1:])
	if err != nil {
		return Pos{}, d.errf("position %q: line: %v", tok, err)
	}
	if line == 0 {
		return Pos{}, d.errf("position %q: lines start at 1", tok)
	}
	return Pos{File: d.files[fn], Line: line}, nil
}

func (d *decoder) window(tok string) (time.Duration, error) {
	ms, err := parseUint(tok)
	if err != nil {
		return 0, d.errf("window: %v", err)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
