package schedule

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

func sampleSchedule() *Schedule {
	cart := "/home/ann/src/shop/cart.go"
	spaced := "/tmp/dir with spaces/a:b_test.go"
	return &Schedule{
		Selects: []SelectPreference{
			{Pos: Pos{cart, 88}, Window: 30 * time.Millisecond, Cases: []int{1, CaseDefault, CaseFree, 0}},
			{Pos: Pos{spaced, 7}, Window: 0, Cases: []int{12}},
		},
		Delays: []Delay{{
			Op:     OpID{G: "1.2", Kind: trace.KindOnceDo, Pos: Pos{cart, 40}, N: 1},
			Until:  OpID{G: "1.3", Kind: trace.KindOnceDo, Pos: Pos{cart, 40}, N: 1},
			Window: 25 * time.Millisecond,
		}},
		Order: &Order{Window: 200 * time.Millisecond, Ops: []OpID{
			{G: "1.1", Kind: trace.KindLock, Pos: Pos{cart, 51}, N: 1},
			{G: "1.1", Kind: trace.KindUnlock, Pos: Pos{cart, 53}, N: 1},
			{G: "0.3.10", Kind: trace.KindSelect, Pos: Pos{spaced, 9}, N: 2147483647},
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	for name, s := range map[string]*Schedule{
		"full":       sampleSchedule(),
		"free":       {},
		"onlyorder":  {Order: sampleSchedule().Order},
		"onlyselect": {Selects: sampleSchedule().Selects[:1]},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatalf("decoding our own encoding: %v\n%s", err, b)
			}
			if !reflect.DeepEqual(got, s) {
				t.Errorf("round trip changed the schedule:\nwant %+v\ngot  %+v\nencoding:\n%s", s, got, b)
			}
			b2, err := Marshal(got)
			if err != nil || !bytes.Equal(b, b2) {
				t.Errorf("encoding is not canonical: %v\n%s\n---\n%s", err, b, b2)
			}
		})
	}
}

func TestEncodingIsTheDocumentedText(t *testing.T) {
	s := &Schedule{
		Selects: []SelectPreference{{Pos: Pos{"/a/x.go", 3}, Window: 1500 * time.Microsecond, Cases: []int{2, -1}}},
		Order:   &Order{Window: time.Second, Ops: []OpID{{G: "1", Kind: trace.KindChanSend, Pos: Pos{"/a/y.go", 4}, N: 2}}},
	}
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Files are numbered in order of first use; 1.5 ms rounds up to 2 ms (never down to 0).
	want := "goweave-schedule 1\nfile 1 /a/x.go\nfile 2 /a/y.go\nselect 1:3 2 2 -1\norder 1000\nop 1 4 2:4 2\nend\n"
	if string(b) != want {
		t.Errorf("encoding:\n%s\nwant:\n%s", b, want)
	}
}

// TestFormatExample decodes the example of FORMAT.md, so the document cannot drift from the code.
func TestFormatExample(t *testing.T) {
	doc, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "## Example\n\n")
	if !ok {
		t.Fatal("FORMAT.md has no Example section")
	}
	var ex strings.Builder
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		ex.WriteString(strings.TrimPrefix(l, "    ") + "\n")
	}
	s, err := Unmarshal([]byte(ex.String()))
	if err != nil {
		t.Fatalf("the FORMAT.md example does not decode: %v\n%s", err, ex.String())
	}
	cart := "/home/ann/src/shop/cart.go"
	if len(s.Selects) != 1 || s.Selects[0].Pos != (Pos{cart, 88}) || !reflect.DeepEqual(s.Selects[0].Cases, []int{1, CaseDefault, CaseFree, 0}) || s.Selects[0].Window != 30*time.Millisecond {
		t.Errorf("selects = %+v", s.Selects)
	}
	if len(s.Delays) != 1 || s.Delays[0].Op != (OpID{"1.2", trace.KindOnceDo, Pos{cart, 40}, 1}) || s.Delays[0].Until.G != "1.3" {
		t.Errorf("delays = %+v", s.Delays)
	}
	if s.Order == nil || len(s.Order.Ops) != 3 || s.Order.Ops[1] != (OpID{"1.1", trace.KindUnlock, Pos{cart, 53}, 1}) {
		t.Errorf("order = %+v", s.Order)
	}
}

func TestRejectsGarbage(t *testing.T) {
	const h = "goweave-schedule 1\n"
	const f = h + "file 1 /a.go\n"
	for _, tc := range []struct {
		name, in string
		line     int
		msg      string
	}{
		{"empty", "", 0, "empty file"},
		{"binary", "\x00\x01\x02\n", 1, "not a goweave schedule"},
		{"version", "goweave-schedule 2\nend\n", 1, "unsupported schedule version \"2\""},
		{"truncated", h + "file 1 /a.go", 2, "does not end with a newline"},
		{"noend", f, 2, "missing the end line"},
		{"afterend", h + "end\nend\n", 3, "after the end line"},
		{"crlf", h + "end\r\n", 2, "carriage return"},
		{"double space", f + "select 1:3  5 0\nend\n", 3, "exactly one space"},
		{"unknown", f + "sleep 5\nend\n", 3, "unknown line type \"sleep\""},
		{"file order", h + "file 2 /a.go\nend\n", 2, "out of sequence (want 1)"},
		{"undeclared file", f + "select 2:3 5 0\nend\n", 3, "names file 2"},
		{"line zero", f + "select 1:0 5 0\nend\n", 3, "lines start at 1"},
		{"leading zero", f + "select 1:03 5 0\nend\n", 3, "leading zero"},
		{"negative window", f + "select 1:3 -5 0\nend\n", 3, "window"},
		{"bad case", f + "select 1:3 5 -3\nend\n", 3, "case"},
		{"no cases", f + "select 1:3 5\nend\n", 3, "at least one case"},
		{"dup select", f + "select 1:3 5 0\nselect 1:3 5 1\nend\n", 4, "second select line"},
		{"huge", f + "select 1:3 5 99999999999\nend\n", 3, "too large"},
		{"section order", f + "order 5\nop 1 4 1:3 1\nselect 1:3 5 0\nend\n", 5, "after a later section"},
		{"op without order", f + "op 1 4 1:3 1\nend\n", 3, "outside an order"},
		{"bad kind", f + "order 5\nop 1 3 1:3 1\nend\n", 4, "kind 3 cannot be scheduled"},
		{"occurrence zero", f + "order 5\nop 1 4 1:3 0\nend\n", 4, "1-based"},
		{"bad gid root", f + "order 5\nop 2.1 4 1:3 1\nend\n", 4, "must start with 0"},
		{"bad gid child", f + "order 5\nop 1.0 4 1:3 1\nend\n", 4, "spawn numbers start at 1"},
		{"bad gid dots", f + "order 5\nop 1..2 4 1:3 1\nend\n", 4, "component 2"},
		{"delay fields", f + "delay 1 4 1:3 1 5\nend\n", 3, "9 fields"},
		{"order without ops", f + "order 5\nend\n", 4, "without op lines"},
		{"two orders", f + "order 5\norder 6\nend\n", 4, "second order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Unmarshal([]byte(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Unmarshal(%q) = %+v, %v; want a *SyntaxError", tc.in, s, err)
			}
			if se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error %q (line %d), want line %d containing %q", err, se.Line, tc.line, tc.msg)
			}
		})
	}
}

func TestCommentsAreIgnored(t *testing.T) {
	s, err := Unmarshal([]byte("goweave-schedule 1\n# hi\nfile 1 /a.go\n#\norder 5\n# Lock\nop 1 10 1:3 1\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Order == nil || len(s.Order.Ops) != 1 || s.Order.Ops[0].Kind != trace.KindLock {
		t.Errorf("got %+v", s.Order)
	}
}

func TestMarshalRejectsInvalid(t *testing.T) {
	op := OpID{G: "1", Kind: trace.KindLock, Pos: Pos{"/a.go", 1}, N: 1}
	for name, s := range map[string]*Schedule{
		"empty order":     {Order: &Order{Window: time.Millisecond}},
		"newline in path": {Selects: []SelectPreference{{Pos: Pos{"/a\n.go", 1}, Cases: []int{0}}}},
		"spawn op":        {Order: &Order{Ops: []OpID{{G: "1", Kind: trace.KindGoSpawn, Pos: Pos{"/a.go", 1}, N: 1}}}},
		"bad gid":         {Delays: []Delay{{Op: OpID{G: "x", Kind: trace.KindLock, Pos: op.Pos, N: 1}, Until: op}}},
		"negative window": {Delays: []Delay{{Op: op, Until: op, Window: -time.Millisecond}}},
		"zero occurrence": {Order: &Order{Ops: []OpID{{G: "1", Kind: trace.KindLock, Pos: op.Pos}}}},
	} {
		if _, err := Marshal(s); err == nil {
			t.Errorf("%s: Marshal accepted an invalid schedule", name)
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	path := t.TempDir() + "/s.sched"
	s := sampleSchedule()
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("ReadFile = %+v, %v", got, err)
	}
	if _, err := ReadFile(path + ".missing"); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
}

// FuzzUnmarshal checks that no input panics and that whatever decodes re-encodes to a file
// that decodes to the same schedule.
func FuzzUnmarshal(f *testing.F) {
	b, _ := Marshal(sampleSchedule())
	f.Add(b)
	f.Add([]byte("goweave-schedule 1\nend\n"))
	f.Add([]byte("goweave-schedule 1\nfile 1 /x\nselect 1:1 0 -2\nend\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Unmarshal(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		out, err := Marshal(s)
		if err != nil {
			t.Fatalf("decoded schedule does not encode: %v\ninput %q", err, in)
		}
		s2, err := Unmarshal(out)
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("re-decoding differs: %v\n%q\n%q", err, in, out)
		}
	})
}
