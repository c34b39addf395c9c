package schedule

import (
	"bytes"
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
	var out bytes.Buffer
	out.WriteString("goweave-schedule 1\n")
	for i, f := range e.names {
		out.WriteString("file ")
		out.WriteString(strconv.Itoa(i + 1))
		out.WriteByte(' ')
		out.WriteString(f)
		out.WriteByte('\n')
	}
	for _, sp := range s.Selects {
		out.WriteString("select ")
		e.pos(&out, sp.Pos)
		out.WriteByte(' ')
		out.WriteString(strconv.FormatInt(windowMillis(sp.Window), 10))
		for _, c := range sp.Cases {
			out.WriteByte(' ')
			out.WriteString(strconv.Itoa(c))
		}
		out.WriteByte('\n')
	}
	for _, d := range s.Delays {
		out.WriteString("delay ")
		e.op(&out, d.Op)
		out.WriteByte(' ')
		out.WriteString(strconv.FormatInt(windowMillis(d.Window), 10))
		out.WriteByte(' ')
		e.op(&out, d.Until)
		out.WriteByte('\n')
	}
	if s.Order != nil {
		out.WriteString("order ")
		out.WriteString(strconv.FormatInt(windowMillis(s.Order.Window), 10))
		out.WriteByte('\n')
		for _, op := range s.Order.Ops {
			out.WriteString("op ")
			e.op(&out, op)
			out.WriteByte('\n')
		}
	}
	out.WriteString("end\n")
	if out.Len() > maxFileSize {
		return nil, &SizeError{Size: out.Len()}
	}
	return out.Bytes(), nil
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

func (e *encoder) pos(out *bytes.Buffer, p Pos) {
	out.WriteString(strconv.Itoa(e.files[p.File]))
	out.WriteByte(':')
	out.WriteString(strconv.Itoa(p.Line))
}

func (e *encoder) op(out *bytes.Buffer, op OpID) {
	out.WriteString(string(op.G))
	out.WriteByte(' ')
	out.WriteString(strconv.Itoa(int(op.Kind)))
	out.WriteByte(' ')
	e.pos(out, op.Pos)
	out.WriteByte(' ')
	out.WriteString(strconv.Itoa(op.N))
}
