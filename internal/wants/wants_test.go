package wants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const program = `package p

func f(ch chan int) {
	close(ch) // related "send-on-closed"
	ch <- 1   // want "send-on-closed" "deadlock"
	<-ch
}
`

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestParseDir(t *testing.T) {
	dir := writeDir(t, map[string]string{"p_test.go": program, "notes.txt": `// want "x"`})
	a, err := ParseDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range a.Wants {
		got = append(got, w.String())
	}
	if want := "p_test.go:5: send-on-closed,p_test.go:5: deadlock"; strings.Join(got, ",") != want {
		t.Errorf("wants = %q, want %q", strings.Join(got, ","), want)
	}
	if len(a.Related) != 1 || a.Related[0].Line != 4 || a.Related[0].Kind != "send-on-closed" {
		t.Errorf("related = %v", a.Related)
	}
}

func TestMatch(t *testing.T) {
	dir := writeDir(t, map[string]string{"p_test.go": program})
	a, err := ParseDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "p_test.go")
	tests := []struct {
		name                string
		reports             []Report
		missing, unexpected int
	}{
		{"all met", []Report{{"send-on-closed", file, 5}, {"deadlock", file, 5}}, 0, 0},
		{"one missing", []Report{{"deadlock", file, 5}}, 1, 0},
		{"on related line is allowed", []Report{{"send-on-closed", file, 4}, {"send-on-closed", file, 5}, {"deadlock", file, 5}}, 0, 0},
		{"wrong kind on related line", []Report{{"deadlock", file, 4}, {"send-on-closed", file, 5}, {"deadlock", file, 5}}, 0, 1},
		{"unannotated line", []Report{{"leak-chan", file, 6}, {"send-on-closed", file, 5}, {"deadlock", file, 5}}, 0, 1},
		{"other file is out of scope", []Report{{"leak-chan", "/usr/local/go/src/testing/testing.go", 10}, {"send-on-closed", file, 5}, {"deadlock", file, 5}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.Match(tt.reports)
			if len(r.Missing) != tt.missing || len(r.Unexpected) != tt.unexpected {
				t.Errorf("missing %d, unexpected %d; want %d, %d\n%s", len(r.Missing), len(r.Unexpected), tt.missing, tt.unexpected, r)
			}
			if r.OK() != (tt.missing == 0 && tt.unexpected == 0) {
				t.Errorf("OK() = %v", r.OK())
			}
		})
	}
}

func TestNoWantsExpectsNothing(t *testing.T) {
	dir := writeDir(t, map[string]string{"ok_test.go": "package p\n\nfunc g() {}\n"})
	a, err := ParseDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Match([]Report{{"leak-chan", filepath.Join(dir, "ok_test.go"), 3}})
	if len(r.Unexpected) != 1 {
		t.Errorf("a finding in a correct program must be unexpected: %v", r)
	}
}
