package schedule

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

// Encode writes s in the schedule file format (FORMAT.md). It fails only if s is invalid
// (see Validate) or w fails.
func Encode(w io.Writer, s *Schedule) error {
	b, err := Marshal(s)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns the encoding of s. The encoding is canonical: equal schedules encode to equal
// bytes, so it can serve as a dedup key.
func Marshal(s *Schedule) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var e encoder
	e.files = make(map[string]int)
	// Declare files first, in order of first use, as the grammar wants them before use.
	for _, sp := range s.Selects {
		e.file(sp.Pos.File)
	}
	for _, d := range s.Delays {
		e.file(d.Op.Pos.File)
		e.file(d.Until.Pos.File)
	}
	if s.Order != nil {
		for _, op := range s.Order.Ops {
			e.file(op.Pos.File)
		}
	}
	if len(e.names) > maxFiles {
		return nil, fmt.Errorf("schedule names %d files, the format allows %d", len(e.names), maxFiles)
	}
	out := make([]byte, 0, 64+32*len(e.names)+32*len(s.Selects)+64*len(s.Delays)+orderLen(s)*40)
	out = append(out, "goweave-schedule 1\n"...)
	for i, f := range e.names {
		out = append(out, "file "...)
		out = strconv.AppendInt(out, int64(i+1), 10)
		out = append(out, ' ')
		out = append(out, f...)
		out = append(out, '\n')
	}
	for _, sp := range s.Selects {
		out = append(out, "select "...)
		out = e.pos(out, sp.Pos)
		out = append(out, ' ')
		out = strconv.AppendInt(out, windowMillis(sp.Window), 10)
		for _, c := range sp.Cases {
			out = append(out, ' ')
			out = strconv.AppendInt(out, int64(c), 10)
		}
		out = append(out, '\n')
	}
	for _, d := range s.Delays {
		out = append(out, "delay "...)
		out = e.op(out, d.Op)
		out = append(out, ' ')
		out = strconv.AppendInt(out, windowMillis(d.Window), 10)
		out = append(out, ' ')
		out = e.op(out, d.Until)
		out = append(out, '\n')
	}
	if s.Order != nil {
		out = append(out, "order "...)
		out = strconv.AppendInt(out, windowMillis(s.Order.Window), 10)
		out = append(out, '\n')
		for _, op := range s.Order.Ops {
			out = append(out, "op "...)
			out = e.op(out, op)
			out = append(out, '\n')
		}
	}
	out = append(out, "end\n"...)
	if len(out) > maxFileSize {
		return nil, &SizeError{Size: len(out)}
	}
	return out, nil
}

func orderLen(s *Schedule) int {
	if s.Order == nil {
		return 0
	}
	return len(s.Order.Ops)
}

// SizeError is returned when a schedule's encoding exceeds the format's 16 MiB limit.
type SizeError struct{ Size int }

func (e *SizeError) Error() string {
	return "schedule: encoding of " + strconv.Itoa(e.Size) + " bytes exceeds the format limit of 16 MiB"
}

// WriteFile encodes s into the file at path, replacing it.
func WriteFile(path string, s *Schedule) error {
	b, err := Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

type encoder struct {
	files map[string]int
	names []string
}

func (e *encoder) file(name string) {
	if _, ok := e.files[name]; !ok {
		e.names = append(e.names, name)
		e.files[name] = len(e.names)
	}
}

func (e *encoder) pos(out []byte, p Pos) []byte {
	out = strconv.AppendInt(out, int64(e.files[p.File]), 10)
	out = append(out, ':')
	return strconv.AppendInt(out, int64(p.Line), 10)
}

func (e *encoder) op(out []byte, op OpID) []byte {
	out = append(out, op.G...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(op.Kind), 10)
	out = append(out, ' ')
	out = e.pos(out, op.Pos)
	out = append(out, ' ')
	return strconv.AppendInt(out, int64(op.N), 10)
}
