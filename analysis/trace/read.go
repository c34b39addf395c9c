package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Format constants of version 1.
const (
	Magic          = "GWTRACE\x00"
	Version        = 1
	RecordSize     = 64
	headerSize     = 16
	sectionHdrSize = 16
	positionSize   = 16
	goroutineSize  = 32
	endSize        = 16
)

// Section tags.
const (
	SectionMeta       = 1
	SectionStrings    = 2
	SectionPositions  = 3
	SectionEvents     = 4
	SectionGoroutines = 5
	SectionEnd        = 0xFFFF
)

// FormatError reports a corrupt or truncated trace at a byte offset.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string { return fmt.Sprintf("trace: offset %d: %s", e.Offset, e.Msg) }

// ReadFile reads and validates the trace file at path. Errors name the file.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ReadFilePrefix is ReadFile keeping only the first maxEvents events (0: all), and a
// select's cases with it: the rest of the file is still read and validated, not decoded
// into events. What is left out is counted in Trace.Cut and added to META "dropped", so the
// analysis treats it as the events a recorder of that size would have lost (only what
// happened is reported). For a trace too large to analyze whole within a memory budget.
func ReadFilePrefix(path string, maxEvents int) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := read(f, maxEvents)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read decodes and validates a trace. Memory grows with the data actually present, never
// with a length field alone, so a corrupt length cannot make it allocate absurd amounts.
func Read(r io.Reader) (*Trace, error) { return read(r, 0) }

// read is Read keeping the first limit events (0: all; ReadFilePrefix).
func read(r io.Reader, limit int) (*Trace, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), t: &Trace{Meta: map[string]string{}}, limit: limit, cutFrom: -1}
	switch s := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		d.size = int64(s.Len())
	case *os.File:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			d.size = fi.Size()
			if at, ok := firstHole(s, d.size); ok {
				return nil, &FormatError{Offset: at, Msg: fmt.Sprintf("the file (%d bytes) has a hole here: "+
					"a sparse file, which the goweave runtime never writes; it is damaged or not a trace "+
					"(record it again by rerunning the test)", d.size)}
			}
		}
	}
	if err := d.decode(); err != nil {
		return nil, err
	}
	if d.t.Cut > 0 {
		dropped, _ := strconv.ParseUint(d.t.Meta["dropped"], 10, 64)
		d.t.Meta["dropped"] = strconv.FormatUint(dropped+d.t.Cut, 10)
	}
	return d.t, nil
}

type decoder struct {
	r    *bufio.Reader
	off  int64 // offset of the next byte of r
	size int64 // size of the input when known (0: unknown)
	t    *Trace

	seen        map[uint32]bool
	strs        []string
	stringsOff  int64
	posRaw      []rawPosition
	posOff      int64
	eventsOff   int64
	nrecords    int             // EVENTS records, SelectCase records included
	empty       int             // empty records among them
	skipped     []skippedRecord // in record order
	goRaw       []rawGoroutine
	goOff       int64
	haveEvents  bool
	haveGorouts bool
	limit       int // events kept (0: all; ReadFilePrefix)
	cutFrom     int // the first record left out past limit (-1: none yet)
}

type rawPosition struct{ file, line, col, fn uint32 }

type rawGoroutine struct {
	g       Goroutine
	reason  uint32
	lastRec uint64
}

func (d *decoder) errf(off int64, format string, args ...any) error {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// full reads exactly len(buf) bytes; a short read is a truncation error at the current offset.
func (d *decoder) full(buf []byte, what string) error {
	n, err := io.ReadFull(d.r, buf)
	d.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return d.errf(d.off, "truncated %s", what)
		}
		return fmt.Errorf("trace: offset %d: %w", d.off, err)
	}
	return nil
}

func (d *decoder) decode() error {
	var hdr [headerSize]byte
	if err := d.full(hdr[:], "header"); err != nil {
		return err
	}
	if string(hdr[:8]) != Magic {
		return d.errf(0, "not a goweave trace (bad magic %q)", hdr[:8])
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != Version {
		return d.errf(8, "unsupported trace version %d (this goweave reads version %d)", v, Version)
	}
	if rs := binary.LittleEndian.Uint32(hdr[12:]); rs != RecordSize {
		return d.errf(12, "record size %d, expected %d", rs, RecordSize)
	}
	d.seen = map[uint32]bool{}
	for {
		start := d.off
		var sh [sectionHdrSize]byte
		if err := d.full(sh[:], "section header (missing END section?)"); err != nil {
			if start == d.off {
				return d.errf(start, "missing END section")
			}
			return err
		}
		tag := binary.LittleEndian.Uint32(sh[0:])
		length := binary.LittleEndian.Uint64(sh[8:])
		if binary.LittleEndian.Uint32(sh[4:]) != 0 {
			return d.errf(start+4, "section %d: reserved field is not 0", tag)
		}
		if d.seen[tag] {
			return d.errf(start, "section %d appears twice", tag)
		}
		d.seen[tag] = true
		if length > 1<<62 || d.size > 0 && length > uint64(d.size-d.off) {
			// (checked before reading: a huge declared length is rejected at once)
			left := max(d.size-d.off, 0)
			return d.errf(start+8, "section %d: length %d overruns the file (%d bytes follow)", tag, length, left)
		}
		payload := d.off
		var err error
		switch tag {
		case SectionMeta:
			err = d.meta(payload, length)
		case SectionStrings:
			err = d.strings(payload, length)
		case SectionPositions:
			err = d.positions(payload, length)
		case SectionEvents:
			err = d.events(payload, length)
		case SectionGoroutines:
			err = d.goroutines(payload, length)
		case SectionEnd:
			if err := d.end(payload, length); err != nil {
				return err
			}
			return d.finish()
		default:
			// A later version's section: skip it, still checking that it is all there.
			n, cerr := io.CopyN(io.Discard, d.r, int64(length))
			d.off += n
			if cerr != nil {
				err = d.errf(d.off, "truncated section %d (length %d at offset %d)", tag, length, start+8)
			}
		}
		if err != nil {
			return err
		}
	}
}

// payload reads a whole section into memory, growing with the data that arrives.
func (d *decoder) payload(tag string, length uint64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, d.r, int64(length))
	d.off += n
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, d.errf(d.off, "truncated %s section (%d of %d bytes)", tag, n, length)
		}
		return nil, fmt.Errorf("trace: offset %d: %w", d.off, err)
	}
	return buf.Bytes(), nil
}

func (d *decoder) meta(off int64, length uint64) error {
	p, err := d.payload("META", length)
	if err != nil {
		return err
	}
	lineOff := off
	for len(p) > 0 {
		line := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			line, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		if len(line) > 0 {
			k, v, ok := strings.Cut(string(line), "=")
			if !ok || k == "" {
				return d.errf(lineOff, "META line %q is not key=value", line)
			}
			d.t.Meta[k] = v
		}
		lineOff += int64(len(line)) + 1
	}
	return nil
}

func (d *decoder) strings(off int64, length uint64) error {
	d.stringsOff = off
	p, err := d.payload("STRINGS", length)
	if err != nil {
		return err
	}
	at := off
	for len(p) > 0 {
		if len(p) < 4 {
			return d.errf(at, "STRINGS: truncated string length")
		}
		n := binary.LittleEndian.Uint32(p)
		if uint64(n) > uint64(len(p)-4) {
			return d.errf(at, "STRINGS: string of length %d overruns the section", n)
		}
		d.strs = append(d.strs, string(p[4:4+n]))
		p = p[4+n:]
		at += 4 + int64(n)
	}
	if len(d.strs) > 0 && d.strs[0] != "" {
		return d.errf(off, "STRINGS: string 0 must be empty")
	}
	return nil
}

func (d *decoder) records(tag string, length uint64, size int, each func(rec []byte, at int64) error) error {
	if length%uint64(size) != 0 {
		return d.errf(d.off-8, "%s: length %d is not a multiple of the record size %d", tag, length, size)
	}
	const batch = 1024 // records read at once
	n := length / uint64(size)
	buf := make([]byte, size*int(min(n, batch)))
	what := tag + " record"
	for n > 0 {
		k := min(n, batch)
		chunk := buf[:k*uint64(size)]
		at := d.off
		if err := d.full(chunk, what); err != nil {
			return err
		}
		for j := 0; j < len(chunk); j += size {
			if err := each(chunk[j:j+size], at+int64(j)); err != nil {
				return err
			}
		}
		n -= k
	}
	return nil
}

// initialCap bounds a preallocation by what a length field claims and, when the input's
// size is known, by what can actually follow.
func (d *decoder) initialCap(n uint64, recordSize int) int {
	limit := uint64(1 << 16)
	if d.size > 0 {
		limit = max(limit, uint64(d.size-d.off)/uint64(recordSize))
	}
	return int(min(n, limit))
}

func (d *decoder) positions(off int64, length uint64) error {
	d.posOff = off
	d.posRaw = make([]rawPosition, 0, d.initialCap(length/positionSize, positionSize))
	return d.records("POSITIONS", length, positionSize, func(b []byte, at int64) error {
		d.posRaw = append(d.posRaw, rawPosition{
			file: binary.LittleEndian.Uint32(b[0:]), line: binary.LittleEndian.Uint32(b[4:]),
			col: binary.LittleEndian.Uint32(b[8:]), fn: binary.LittleEndian.Uint32(b[12:]),
		})
		return nil
	})
}

func (d *decoder) events(off int64, length uint64) error {
	d.eventsOff = off
	d.haveEvents = true
	d.t.Events = make([]Event, 0, d.initialCap(length/RecordSize, RecordSize))
	selIdx := -1     // the Select whose cases are being read
	selRec := 0      // its record index
	want := 0        // cases still expected for it
	orphans := false // after an empty slot: stray case records of an unfinished select are dropped
	truncate := func() {
		sel := &d.t.Events[selIdx]
		sel.Aux = uint16(len(sel.Cases))
		if sel.A != SelectDefault && sel.A >= uint64(len(sel.Cases)) {
			sel.A, sel.Flags = SelectDefault, sel.Flags&^FlagSuccess
		}
		want = 0
	}
	err := d.records("EVENTS", length, RecordSize, func(b []byte, at int64) error {
		rec := d.nrecords
		d.nrecords++
		if d.cutFrom < 0 && d.limit > 0 && len(d.t.Events) >= d.limit && want == 0 {
			d.cutFrom = rec // not inside a select's cases: the select keeps them all
		}
		if d.cutFrom >= 0 {
			d.t.Cut++
			return nil
		}
		e := Event{
			Kind:  Kind(b[0]),
			Flags: Flags(b[1]),
			Aux:   binary.LittleEndian.Uint16(b[2:]),
			Pos:   binary.LittleEndian.Uint32(b[4:]),
			G:     binary.LittleEndian.Uint64(b[8:]),
			Obj:   binary.LittleEndian.Uint64(b[16:]),
			Pre:   binary.LittleEndian.Uint64(b[24:]),
			Post:  binary.LittleEndian.Uint64(b[32:]),
			A:     binary.LittleEndian.Uint64(b[40:]),
			B:     binary.LittleEndian.Uint64(b[48:]),
			C:     binary.LittleEndian.Uint64(b[56:]),
		}
		if e.Kind == kindEmpty {
			// A slot the process never finished writing: ignored. If it interrupts a select's
			// cases, the select keeps the cases written so far.
			if want > 0 {
				truncate()
			}
			if d.empty++; d.empty > maxEmptyRecords {
				return d.errf(at, "more than %d empty records (slots reserved but never written): a run leaves "+
					"at most one per goroutine that was recording when it ended; the file is damaged or not a trace", maxEmptyRecords)
			}
			orphans = true
			d.skipped = append(d.skipped, skippedRecord{rec: rec, event: -1})
			return nil
		}
		if e.Kind == KindHold || e.Kind == KindTimedWait {
			d.t.Timed = append(d.t.Timed, Timed{Kind: e.Kind, Aux: e.Aux, Pos: e.Pos, G: e.G, Obj: e.Obj,
				Stamp: e.Pre, Start: int64(e.B), Dur: time.Duration(e.A)})
			d.skipped = append(d.skipped, skippedRecord{rec: rec, event: -1})
			return nil
		}
		if want > 0 {
			sel := &d.t.Events[selIdx]
			if e.Kind != KindSelectCase {
				return d.errf(at, "event %d: %s where case %d of %d of the select at record %d was expected",
					rec, e.Kind, len(sel.Cases), sel.Aux, selRec)
			}
			if e.G != sel.G {
				return d.errf(at, "event %d: select case of goroutine %d follows a select of goroutine %d", rec, e.G, sel.G)
			}
			if e.A != 1 && e.A != 2 {
				return d.errf(at, "event %d: select case direction %d (want 1 send or 2 recv)", rec, e.A)
			}
			sel.Cases = append(sel.Cases, Case{Index: int(e.Aux), Obj: e.Obj, Send: e.A == 1, ValueUsed: e.Flags.Has(FlagValueUsed), Ready: e.B == 1})
			d.skipped = append(d.skipped, skippedRecord{rec: rec, event: selIdx})
			want--
			return nil
		}
		if e.Kind == KindSelectCase {
			if orphans {
				d.skipped = append(d.skipped, skippedRecord{rec: rec, event: -1})
				return nil
			}
			return d.errf(at, "event %d: select case without a select", rec)
		}
		orphans = false
		if e.Post == 0 && takesEffectAtRequest(e.Kind) {
			// Its goroutine was preempted between the record's opening and its completion
			// (WgDone: around the counter's change) and not run again before the process
			// exited. Such an operation completes at its request: a Done left open was a
			// Done never done, and a correct worker pool's send a predicted send-on-closed.
			e.Post = e.Pre
		}
		if e.Post != 0 && e.Pre > e.Post {
			return d.errf(at, "event %d: completion stamp %d precedes request stamp %d", rec, e.Post, e.Pre)
		}
		if e.Kind == KindSelect && e.A != SelectDefault && e.A >= uint64(e.Aux) {
			return d.errf(at+40, "event %d: select chose case %d of %d", rec, e.A, e.Aux)
		}
		e.Index = len(d.t.Events)
		d.t.Events = append(d.t.Events, e)
		if e.Kind == KindSelect && e.Aux > 0 {
			selIdx, selRec, want = e.Index, rec, int(e.Aux)
			d.t.Events[selIdx].Cases = make([]Case, 0, min(int(e.Aux), 64))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if want > 0 { // the section ends inside a select: the process ended while recording it
		truncate()
	}
	return nil
}

// kindEmpty marks a slot that was reserved but not completely written.
const kindEmpty Kind = 0

// maxEmptyRecords bounds the empty slots of a trace: the runtime leaves one per goroutine
// caught recording by the end of the process (and the tail of a multi-record reservation
// when the buffer fills up), a handful; a file of zeros is not a trace to spend minutes on.
const maxEmptyRecords = 1 << 16

// skippedRecord is an EVENTS record that is not an event of its own: a select case (event:
// its select) or an empty slot (event: -1).
type skippedRecord struct{ rec, event int }

// eventOf maps an EVENTS record index to an event index (-1: an empty slot).
func (d *decoder) eventOf(rec int) int {
	if d.cutFrom >= 0 && rec >= d.cutFrom {
		return -1 // left out (ReadFilePrefix)
	}
	k := sort.Search(len(d.skipped), func(i int) bool { return d.skipped[i].rec >= rec })
	if k < len(d.skipped) && d.skipped[k].rec == rec {
		return d.skipped[k].event
	}
	return rec - k
}

func (d *decoder) goroutines(off int64, length uint64) error {
	d.goOff = off
	d.haveGorouts = true
	d.goRaw = make([]rawGoroutine, 0, d.initialCap(length/goroutineSize, goroutineSize))
	return d.records("GOROUTINES", length, goroutineSize, func(b []byte, at int64) error {
		d.goRaw = append(d.goRaw, rawGoroutine{
			g: Goroutine{
				ID:     binary.LittleEndian.Uint64(b[0:]),
				Status: binary.LittleEndian.Uint32(b[8:]),
				Parent: binary.LittleEndian.Uint64(b[24:]),
			},
			reason:  binary.LittleEndian.Uint32(b[12:]),
			lastRec: binary.LittleEndian.Uint64(b[16:]),
		})
		return nil
	})
}

func (d *decoder) end(off int64, length uint64) error {
	if length != endSize {
		return d.errf(off-8, "END: length %d, expected %d", length, endSize)
	}
	var b [endSize]byte
	if err := d.full(b[:], "END section"); err != nil {
		return err
	}
	if n := binary.LittleEndian.Uint64(b[0:]); n != uint64(d.nrecords) {
		return d.errf(off, "END counts %d events, the EVENTS section holds %d", n, d.nrecords)
	}
	if n := binary.LittleEndian.Uint64(b[8:]); n != uint64(len(d.goRaw)) {
		return d.errf(off+8, "END counts %d goroutines, the GOROUTINES section holds %d", n, len(d.goRaw))
	}
	if _, err := d.r.ReadByte(); err == nil {
		return d.errf(d.off, "data after the END section")
	}
	return nil
}

// finish resolves string and position references, now that every section is read.
func (d *decoder) finish() error {
	str := func(id uint32, at int64, what string) (string, error) {
		if id == 0 {
			return "", nil
		}
		if int(id) >= len(d.strs) {
			return "", d.errf(at, "%s refers to string %d of %d", what, id, len(d.strs))
		}
		return d.strs[id], nil
	}
	d.t.Positions = make([]Position, len(d.posRaw))
	for i, p := range d.posRaw {
		at := d.posOff + int64(i)*positionSize
		file, err := str(p.file, at, fmt.Sprintf("position %d", i+1))
		if err != nil {
			return err
		}
		fn, err := str(p.fn, at+12, fmt.Sprintf("position %d", i+1))
		if err != nil {
			return err
		}
		d.t.Positions[i] = Position{File: file, Line: int(p.line), Column: int(p.col), Func: fn}
	}
	rec, k := 0, 0 // record of event i; skipped records passed
	for i := range d.t.Events {
		for k < len(d.skipped) && d.skipped[k].rec == rec {
			rec, k = rec+1, k+1
		}
		if e := &d.t.Events[i]; int(e.Pos) > len(d.t.Positions) {
			return d.errf(d.eventsOff+int64(rec)*RecordSize+4, "event %d refers to position %d of %d", rec, e.Pos, len(d.t.Positions))
		}
		rec++
	}
	d.t.Goroutines = make([]Goroutine, len(d.goRaw))
	for i, raw := range d.goRaw {
		at := d.goOff + int64(i)*goroutineSize
		g := raw.g
		var err error
		if g.WaitReason, err = str(raw.reason, at+12, fmt.Sprintf("goroutine %d", g.ID)); err != nil {
			return err
		}
		g.LastEvent = -1
		if raw.lastRec != 0 {
			if raw.lastRec > uint64(d.nrecords) {
				return d.errf(at+16, "goroutine %d: last event %d of %d", g.ID, raw.lastRec, d.nrecords)
			}
			g.LastEvent = d.eventOf(int(raw.lastRec - 1)) // -1 if it is an empty slot
		}
		d.t.Goroutines[i] = g
	}
	return nil
}

// takesEffectAtRequest reports whether operations of kind k complete at their request
// stamp (FORMAT.md: their post equals their pre): an Add or Done of a WaitGroup, an Unlock or
// RUnlock.
func takesEffectAtRequest(k Kind) bool {
	switch k {
	case KindWgAdd, KindWgDone, KindUnlock, KindRUnlock:
		return true
	}
	return false
}
