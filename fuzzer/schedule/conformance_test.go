package schedule

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// TestConformanceFiles checks the parser conformance files that the runtime's parser is
// tested against too.
func TestConformanceFiles(t *testing.T) {
	valid, _ := filepath.Glob("testdata/valid/*.sched")
	invalid, _ := filepath.Glob("testdata/invalid/*.sched")
	if len(valid) < 4 || len(invalid) < 40 {
		t.Fatalf("%d valid and %d invalid conformance files", len(valid), len(invalid))
	}
	for _, f := range valid {
		s, err := ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		b, err := Marshal(s)
		if err != nil {
			t.Errorf("%s: decoded schedule does not encode: %v", f, err)
		}
		if s2, err := Unmarshal(b); err != nil || !reflect.DeepEqual(s, s2) {
			t.Errorf("%s: re-encoding changes it: %v", f, err)
		}
	}
	for _, f := range invalid {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s, err := Unmarshal(b); err == nil {
			t.Errorf("%s: accepted: %+v", f, s)
		}
	}
	s, err := ReadFile("testdata/valid/everything.sched")
	if err != nil {
		t.Fatal(err)
	}
	if s.Selects[0].Pos.File != "/home/a b/c:d/x_test.go" || s.Selects[1].Pos != (Pos{"relative/path.go", 2147483647}) ||
		!reflect.DeepEqual(s.Selects[1].Cases, []int{CaseDefault, CaseFree, 3, 0}) {
		t.Errorf("selects %+v", s.Selects)
	}
	if d := s.Delays[1]; d.Op != (OpID{"0.1.1", trace.KindSelect, Pos{"relative/path.go", 9}, 3}) || d.Window != 0 || d.Until.N != 2147483647 {
		t.Errorf("delay %+v", d)
	}
	if n := len(s.Order.Ops); n != 17 || s.Order.Ops[n-1].G.Validate() != nil {
		t.Errorf("order %+v", s.Order)
	}
}
