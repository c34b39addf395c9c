package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// sampleTrace exercises every section: a spawn, a buffered channel, a select with two cases,
// a blocked receive and the goroutine table pointing after the select.
func sampleTrace() *Trace {
	return &Trace{
		Meta: map[string]string{"goversion": "go1.26.8", "exit": "exit", "exitcode": "0"},
		Positions: []Position{
			{File: "/m/a.go", Line: 10, Column: 2, Func: "m.f"},
			{File: "/m/a.go", Line: 11, Func: "m.f"},
			{File: "/m/b.go", Line: 3, Column: 5, Func: "m.g"},
		},
		Events: []Event{
			{Kind: KindGoSpawn, Pos: 1, G: 1, Pre: 1, Post: 1, A: 2},
			{Kind: KindChanMake, Pos: 2, G: 1, Obj: 7, Pre: 2, Post: 2, A: 1},
			{Kind: KindSelect, Flags: FlagSuccess, Pos: 3, G: 2, Pre: 3, Post: 4, A: 1, B: 1,
				Cases: []Case{{Index: 0, Obj: 8, Send: true}, {Index: 1, Obj: 7, ValueUsed: true}}},
			{Kind: KindChanSend, Pos: 2, G: 1, Obj: 7, Pre: 5, Post: 5, A: 1, B: 0, C: 1},
			{Kind: KindChanRecv, Flags: FlagValueUsed, Pos: 1, G: 2, Obj: 7, Pre: 6},
		},
		Goroutines: []Goroutine{
			{ID: 1, Status: 2, LastEvent: 3},
			{ID: 2, Status: 4, WaitReason: "chan receive", LastEvent: 4, Parent: 1},
		},
	}
}

func encode(t testing.TB, tr *Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, tr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	want := sampleTrace()
	data := encode(t, want)
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Events {
		want.Events[i].Index = i
	}
	want.Events[2].Aux = 2
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, want)
	}
	if p := got.Position(3); p.File != "/m/b.go" || p.Line != 3 || p.String() != "/m/b.go:3:5" {
		t.Errorf("Position(3) = %v", p)
	}
	if p := got.Position(0); p != (Position{}) {
		t.Errorf("Position(0) = %v, want zero", p)
	}
	if p := got.Position(99); p != (Position{}) {
		t.Errorf("Position(99) = %v, want zero", p)
	}
	// the goroutine table points at records; after the 2 case records, record 6 is event 4
	if got.Goroutines[1].LastEvent != 4 || got.Goroutines[0].LastEvent != 3 {
		t.Errorf("LastEvent mapping: %+v", got.Goroutines)
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trace")
	if err := WriteFile(path, sampleTrace()); err != nil {
		t.Fatal(err)
	}
	if tr, err := ReadFile(path); err != nil || len(tr.Events) != 5 {
		t.Fatalf("ReadFile = %v, %v", tr, err)
	}
	os.WriteFile(path, []byte("GWTRACE\x00\x01\x00\x00\x00"), 0o644)
	_, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "offset") {
		t.Fatalf("truncated file error %v should name the file and the offset", err)
	}
}

// Every proper prefix of a valid trace is truncated and must be rejected with an offset.
func TestEveryTruncationRejected(t *testing.T) {
	data := encode(t, sampleTrace())
	for n := 0; n < len(data); n++ {
		_, err := Read(bytes.NewReader(data[:n]))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("prefix of %d bytes: error %v, want a FormatError", n, err)
		}
		if fe.Offset < 0 || fe.Offset > int64(n) {
			t.Fatalf("prefix of %d bytes: offset %d outside the data", n, fe.Offset)
		}
	}
}

// sectionAt returns the offset of the section header with the given tag.
func sectionAt(t *testing.T, data []byte, tag uint32) int {
	off := headerSize
	for off+sectionHdrSize <= len(data) {
		if binary.LittleEndian.Uint32(data[off:]) == tag {
			return off
		}
		off += sectionHdrSize + int(binary.LittleEndian.Uint64(data[off+8:]))
	}
	t.Fatalf("no section %d", tag)
	return 0
}

func TestCorruptionsRejected(t *testing.T) {
	valid := encode(t, sampleTrace())
	evOff := sectionAt(t, valid, SectionEvents) + sectionHdrSize
	cases := []struct {
		name    string
		corrupt func(b []byte) []byte
		offset  int64
		msg     string
	}{
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, 0, "bad magic"},
		{"version", func(b []byte) []byte { b[8] = 2; return b }, 8, "unsupported trace version 2"},
		{"record size", func(b []byte) []byte { b[12] = 32; return b }, 12, "record size 32"},
		{"huge section length", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[headerSize+8:], 1<<40)
			return b
		}, headerSize + 8, "length 1099511627776 overruns the file"},
		{"events length not a multiple", func(b []byte) []byte {
			o := sectionAt(t, b, SectionEvents)
			binary.LittleEndian.PutUint64(b[o+8:], binary.LittleEndian.Uint64(b[o+8:])-1)
			return b
		}, -1, "not a multiple"},
		{"end count", func(b []byte) []byte {
			o := sectionAt(t, b, SectionEnd) + sectionHdrSize
			b[o]++
			return b
		}, -1, "END counts 8 events"},
		{"trailing data", func(b []byte) []byte { return append(b, 0) }, int64(len(valid)), "data after the END"},
		{"missing end", func(b []byte) []byte { return b[:sectionAt(t, b, SectionEnd)] }, -1, "missing END"},
		{"position out of range", func(b []byte) []byte { b[evOff+4] = 9; return b }, int64(evOff + 4), "position 9 of 3"},
		{"case missing", func(b []byte) []byte { b[evOff+3*RecordSize] = byte(KindChanSend); return b }, int64(evOff + 3*RecordSize), "case 0 of 2"},
		{"stray case", func(b []byte) []byte { b[evOff] = byte(KindSelectCase); return b }, int64(evOff), "select case without a select"},
		{"pre after post", func(b []byte) []byte { b[evOff+24] = 0xff; return b }, int64(evOff), "precedes request stamp"},
		{"chosen case out of range", func(b []byte) []byte { b[evOff+2*RecordSize+40] = 5; return b }, int64(evOff + 2*RecordSize + 40), "chose case 5 of 2"},
		{"duplicate section", func(b []byte) []byte {
			// turn STRINGS into a second META
			o := sectionAt(t, b, SectionStrings)
			b[o] = SectionMeta
			return b
		}, -1, "appears twice"},
		{"string id", func(b []byte) []byte {
			o := sectionAt(t, b, SectionPositions) + sectionHdrSize
			b[o] = 200
			return b
		}, -1, "refers to string 200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.corrupt(bytes.Clone(valid))
			_, err := Read(bytes.NewReader(data))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FormatError", err)
			}
			if !strings.Contains(fe.Msg, c.msg) {
				t.Errorf("message %q does not say %q", fe.Msg, c.msg)
			}
			if c.offset >= 0 && fe.Offset != c.offset {
				t.Errorf("offset %d, want %d (%v)", fe.Offset, c.offset, err)
			}
		})
	}
}

func TestUnknownSectionSkippedAndUnknownKindKept(t *testing.T) {
	tr := sampleTrace()
	tr.Events = append(tr.Events, Event{Kind: 99, G: 1, Pre: 9, Post: 9})
	data := encode(t, tr)
	// insert an unknown section before END
	o := sectionAt(t, data, SectionEnd)
	extra := make([]byte, sectionHdrSize+3)
	binary.LittleEndian.PutUint32(extra, 77)
	binary.LittleEndian.PutUint64(extra[8:], 3)
	data = append(data[:o:o], append(extra, data[o:]...)...)
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if k := got.Events[len(got.Events)-1].Kind; k != 99 || k.Known() || k.String() != "Kind(99)" {
		t.Errorf("unknown kind read as %v", k)
	}
}

func TestKindAndFlagNames(t *testing.T) {
	if KindCondBroadcast.String() != "CondBroadcast" || KindGoSpawn.String() != "GoSpawn" {
		t.Error("kind names")
	}
	if s := (FlagValueUsed | FlagCommaOK).String(); s != "valueused|commaok" {
		t.Errorf("flags = %q", s)
	}
	if !(FlagRW | FlagSuccess).Has(FlagRW) || FlagRW.Has(FlagRW|FlagSuccess) {
		t.Error("Has")
	}
}

// Empty slots (kind 0: the process ended while a goroutine was recording) are ignored, also
// inside a select's cases, and the goroutine table still maps to the right events.
func TestEmptySlots(t *testing.T) {
	data := encode(t, sampleTrace())
	evOff := sectionAt(t, data, SectionEvents) + sectionHdrSize
	// records: 0 spawn, 1 make, 2 select, 3 case0, 4 case1, 5 send, 6 recv
	rec := func(i int) []byte { return data[evOff+i*RecordSize : evOff+(i+1)*RecordSize] }
	clear(rec(1))
	clear(rec(4)) // the select's second case was never written: it keeps one case
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != 4 || got.Events[1].Kind != KindSelect || len(got.Events[1].Cases) != 1 || got.Events[1].Aux != 1 {
		t.Fatalf("events %+v", got.Events)
	}
	if sel := got.Events[1]; sel.A != SelectDefault || sel.Flags.Has(FlagSuccess) {
		t.Errorf("a select whose chosen case was lost must not claim it: %+v", sel)
	}
	// goroutine 1's last record is 5 (the send) -> event 2; goroutine 2's is 6 -> event 3
	if got.Goroutines[0].LastEvent != 2 || got.Goroutines[1].LastEvent != 3 {
		t.Errorf("LastEvent mapping %+v", got.Goroutines)
	}
	// a stray case right after an empty slot (the select record itself was lost) is dropped
	data2 := encode(t, sampleTrace())
	clear(data2[evOff+2*RecordSize : evOff+3*RecordSize])
	got, err = Read(bytes.NewReader(data2))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != 4 || got.Events[2].Kind != KindChanSend {
		t.Errorf("events %+v", got.Events)
	}
}

// hugeTrace writes a file with a valid header and an EVENTS section of n zero records (a
// hole when sparse, written zeros otherwise), then an END section that counts them.
func hugeTrace(t *testing.T, n int64, sparse bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr := []byte(Magic)
	hdr = binary.LittleEndian.AppendUint32(hdr, Version)
	hdr = binary.LittleEndian.AppendUint32(hdr, RecordSize)
	hdr = binary.LittleEndian.AppendUint32(hdr, SectionEvents)
	hdr = binary.LittleEndian.AppendUint32(hdr, 0)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(n*RecordSize))
	if _, err := f.Write(hdr); err != nil {
		t.Fatal(err)
	}
	if sparse {
		if _, err := f.Seek(n*RecordSize, io.SeekCurrent); err != nil {
			t.Fatal(err)
		}
	} else if _, err := f.Write(make([]byte, n*RecordSize)); err != nil {
		t.Fatal(err)
	}
	end := binary.LittleEndian.AppendUint32(nil, SectionEnd)
	end = binary.LittleEndian.AppendUint32(end, 0)
	end = binary.LittleEndian.AppendUint64(end, endSize)
	end = binary.LittleEndian.AppendUint64(end, uint64(n))
	end = binary.LittleEndian.AppendUint64(end, 0)
	if _, err := f.Write(end); err != nil {
		t.Fatal(err)
	}
	return path
}

// A 2 GiB sparse file with a valid header (issue 12, item 7: it was read for 27 s at 3.1 GB)
// and a file of written zero records are rejected after reading little of them, with the
// offset of the problem; so is a section longer than the file.
func TestHugeAndSparseFilesRejected(t *testing.T) {
	for _, c := range []struct {
		name   string
		path   string
		msg    string // either message: a file system without holes makes the sparse file one of zeros
		within int64  // the offset must come before this: the reader stopped early
	}{
		{"sparse 2 GiB", hugeTrace(t, 1<<25, true), "hole|empty records", 1 << 23},
		{"zeros", hugeTrace(t, maxEmptyRecords+10, false), "empty records", 1 << 23},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadFile(c.path)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want a FormatError", err)
			}
			if !regexp.MustCompile(c.msg).MatchString(fe.Msg) || !strings.Contains(err.Error(), c.path) {
				t.Errorf("error %q should say %q and name the file", err, c.msg)
			}
			if fe.Offset <= 0 || fe.Offset >= c.within {
				t.Errorf("offset %d, want the problem found within the first %d bytes", fe.Offset, c.within)
			}
		})
	}
	// a section declared longer than what follows it in the file is rejected before reading it
	path := hugeTrace(t, 10, false)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(binary.LittleEndian.AppendUint64(nil, 1<<31*RecordSize), headerSize+8)
	f.Close()
	_, err = ReadFile(path)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != headerSize+8 || !strings.Contains(fe.Msg, "overruns the file") {
		t.Errorf("error %v, want the EVENTS length at offset %d overrunning the file", err, headerSize+8)
	}
}

// Timing records (Hold, TimedWait) are kept apart from the events, wherever the runtime
// wrote them: the events and the goroutine table's references to them stay as without.
func TestTimedRecordsKeptApart(t *testing.T) {
	hold := Timed{Kind: KindHold, Aux: uint16(KindLock), Pos: 2, G: 2, Stamp: 9, Start: 1000, Dur: 21_000_000}
	wait := Timed{Kind: KindTimedWait, Aux: WaitSleep, Pos: 1, G: 1, Stamp: 10, Start: 500, Dur: 20_000_000}
	tr := sampleTrace()
	// Written between the events, as the runtime does: an event of the timing kind.
	tr.Events = append(tr.Events[:2:2], append([]Event{{Kind: hold.Kind, Aux: hold.Aux, Pos: hold.Pos, G: hold.G,
		Pre: hold.Stamp, Post: hold.Stamp, A: uint64(hold.Dur), B: uint64(hold.Start)}}, tr.Events[2:]...)...)
	tr.Goroutines[0].LastEvent, tr.Goroutines[1].LastEvent = 4, 5
	tr.Timed = []Timed{wait} // and one after them, as Encode writes Timed
	got, err := Read(bytes.NewReader(encode(t, tr)))
	if err != nil {
		t.Fatal(err)
	}
	want := sampleTrace()
	if len(got.Events) != len(want.Events) {
		t.Fatalf("%d events, want %d: %+v", len(got.Events), len(want.Events), got.Events)
	}
	for i := range want.Events {
		if got.Events[i].Kind != want.Events[i].Kind || got.Events[i].Index != i {
			t.Errorf("event %d: %s (index %d), want %s", i, got.Events[i].Kind, got.Events[i].Index, want.Events[i].Kind)
		}
	}
	if got.Goroutines[0].LastEvent != 3 || got.Goroutines[1].LastEvent != 4 {
		t.Errorf("LastEvent mapping: %+v", got.Goroutines)
	}
	if !reflect.DeepEqual(got.Timed, []Timed{hold, wait}) {
		t.Errorf("Timed = %+v, want %+v", got.Timed, []Timed{hold, wait})
	}
	if hold.End() != 21_001_000 {
		t.Errorf("End() = %d", hold.End())
	}
}
