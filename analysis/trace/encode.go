package trace

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
)

// Encode writes t in the binary format that Read decodes. Event.Index is ignored; a Select
// is written with len(Cases) SelectCase records after it (Aux is set to len(Cases)), and
// Goroutine.LastEvent refers to t.Events; the Timed records follow the events. Meta is written in key order, so the output is
// deterministic.
func Encode(w io.Writer, t *Trace) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	strIDs := map[string]uint32{"": 0}
	strs := []string{""}
	intern := func(s string) uint32 {
		if id, ok := strIDs[s]; ok {
			return id
		}
		id := uint32(len(strs))
		strIDs[s] = id
		strs = append(strs, s)
		return id
	}
	posRecs := make([]byte, 0, len(t.Positions)*positionSize)
	for _, p := range t.Positions {
		posRecs = binary.LittleEndian.AppendUint32(posRecs, intern(p.File))
		posRecs = binary.LittleEndian.AppendUint32(posRecs, uint32(p.Line))
		posRecs = binary.LittleEndian.AppendUint32(posRecs, uint32(p.Column))
		posRecs = binary.LittleEndian.AppendUint32(posRecs, intern(p.Func))
	}
	// record index (+1) of each event, for GOROUTINES.lastEvent
	recOf := make([]uint64, len(t.Events))
	nrec := uint64(0)
	for i := range t.Events {
		recOf[i] = nrec + 1
		nrec += 1 + uint64(len(t.Events[i].Cases))
	}
	nrec += uint64(len(t.Timed))
	goRecs := make([]byte, 0, len(t.Goroutines)*goroutineSize)
	for _, g := range t.Goroutines {
		last := uint64(0)
		if g.LastEvent >= 0 {
			if g.LastEvent >= len(t.Events) {
				return fmt.Errorf("trace: goroutine %d: LastEvent %d out of range", g.ID, g.LastEvent)
			}
			last = recOf[g.LastEvent]
		}
		goRecs = binary.LittleEndian.AppendUint64(goRecs, g.ID)
		goRecs = binary.LittleEndian.AppendUint32(goRecs, g.Status)
		goRecs = binary.LittleEndian.AppendUint32(goRecs, intern(g.WaitReason))
		goRecs = binary.LittleEndian.AppendUint64(goRecs, last)
		goRecs = binary.LittleEndian.AppendUint64(goRecs, g.Parent)
	}
	var strRecs []byte
	for _, s := range strs {
		strRecs = binary.LittleEndian.AppendUint32(strRecs, uint32(len(s)))
		strRecs = append(strRecs, s...)
	}
	keys := make([]string, 0, len(t.Meta))
	for k := range t.Meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var meta []byte
	for _, k := range keys {
		meta = append(meta, k...)
		meta = append(meta, '=')
		meta = append(meta, t.Meta[k]...)
		meta = append(meta, '\n')
	}

	var hdr [headerSize]byte
	copy(hdr[:], Magic)
	binary.LittleEndian.PutUint32(hdr[8:], Version)
	binary.LittleEndian.PutUint32(hdr[12:], RecordSize)
	bw.Write(hdr[:])
	section := func(tag uint32, length uint64) {
		var sh [sectionHdrSize]byte
		binary.LittleEndian.PutUint32(sh[0:], tag)
		binary.LittleEndian.PutUint64(sh[8:], length)
		bw.Write(sh[:])
	}
	section(SectionMeta, uint64(len(meta)))
	bw.Write(meta)
	section(SectionStrings, uint64(len(strRecs)))
	bw.Write(strRecs)
	section(SectionPositions, uint64(len(posRecs)))
	bw.Write(posRecs)
	section(SectionEvents, nrec*RecordSize)
	var rec [RecordSize]byte
	for i := range t.Events {
		e := &t.Events[i]
		aux := e.Aux
		if e.Kind == KindSelect {
			aux = uint16(len(e.Cases))
		}
		putRecord(&rec, e.Kind, e.Flags, aux, e.Pos, e.G, e.Obj, e.Pre, e.Post, e.A, e.B, e.C)
		bw.Write(rec[:])
		for _, c := range e.Cases {
			dir := uint64(2)
			var fl Flags
			if c.Send {
				dir = 1
			} else if c.ValueUsed {
				fl = FlagValueUsed
			}
			var ready uint64
			if c.Ready {
				ready = 1
			}
			putRecord(&rec, KindSelectCase, fl, uint16(c.Index), e.Pos, e.G, c.Obj, e.Pre, e.Post, dir, ready, 0)
			bw.Write(rec[:])
		}
	}
	for _, tm := range t.Timed {
		putRecord(&rec, tm.Kind, 0, tm.Aux, tm.Pos, tm.G, tm.Obj, tm.Stamp, tm.Stamp, uint64(tm.Dur), uint64(tm.Start), 0)
		bw.Write(rec[:])
	}
	section(SectionGoroutines, uint64(len(goRecs)))
	bw.Write(goRecs)
	section(SectionEnd, endSize)
	var end [endSize]byte
	binary.LittleEndian.PutUint64(end[0:], nrec)
	binary.LittleEndian.PutUint64(end[8:], uint64(len(t.Goroutines)))
	bw.Write(end[:])
	return bw.Flush()
}

func putRecord(rec *[RecordSize]byte, k Kind, f Flags, aux uint16, pos uint32, g, obj, pre, post, a, b, c uint64) {
	rec[0] = byte(k)
	rec[1] = byte(f)
	binary.LittleEndian.PutUint16(rec[2:], aux)
	binary.LittleEndian.PutUint32(rec[4:], pos)
	binary.LittleEndian.PutUint64(rec[8:], g)
	binary.LittleEndian.PutUint64(rec[16:], obj)
	binary.LittleEndian.PutUint64(rec[24:], pre)
	binary.LittleEndian.PutUint64(rec[32:], post)
	binary.LittleEndian.PutUint64(rec[40:], a)
	binary.LittleEndian.PutUint64(rec[48:], b)
	binary.LittleEndian.PutUint64(rec[56:], c)
}

// WriteFile encodes t to the file at path.
func WriteFile(path string, t *Trace) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Encode(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
