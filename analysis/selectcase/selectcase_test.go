package selectcase

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const src = `package p

func f(in, done chan int, out chan<- int, v int) {
	select {
	case x := <-in:
		_ = x
	case out <- v:
	case <-done:
	default:
	}
	select { case out <- v: default: }
	select {
	case out <- v:
	default:
	}
	select {
	case <-in:
	case <-done:
	}
}
`

func writeSource(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestFindMapsRuntimeOrderToSource(t *testing.T) {
	file := writeSource(t)
	// the runtime sees the send first, then the two receives in source order
	s, err := Find(file, 4, []bool{true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		index, line, col int
		text             string
	}{{1, 7, 2, "out <- v"}, {0, 5, 2, "x := <-in"}, {2, 8, 2, "<-done"}}
	for k, w := range want {
		c, ok := s.Source(k)
		if !ok || c.Index != w.index || c.Line != w.line || c.Column != w.col || c.Text != w.text {
			t.Errorf("runtime case %d = %+v, %v; want source case %d %q at %d:%d", k, c, ok, w.index, w.text, w.line, w.col)
		}
		if got := s.Runtime(w.index); got != k {
			t.Errorf("Runtime(%d) = %d, want %d", w.index, got, k)
		}
	}
	if s.Default != 9 {
		t.Errorf("default at line %d, want 9", s.Default)
	}
	if got, want := s.Name(2), "case 3 (`<-done`, line 8)"; got != want {
		t.Errorf("Name(2) = %q, want %q", got, want)
	}
	if got, want := s.Name(0), "case 2 (`out <- v`, line 7)"; got != want {
		t.Errorf("Name(0) = %q, want %q", got, want)
	}
	if got, want := s.Name(-1), "the default case (line 9)"; got != want {
		t.Errorf("Name(-1) = %q, want %q", got, want)
	}
}

func TestFindCount(t *testing.T) {
	file := writeSource(t)
	s, err := FindCount(file, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Source(0); c.Index != 1 || c.Text != "out <- v" {
		t.Errorf("runtime case 0 = %+v, want the send clause", c)
	}
	if _, err := FindCount(file, 4, 2); err == nil {
		t.Error("a recording with 2 cases matched a select with 3")
	}
}

func TestAt(t *testing.T) {
	file := writeSource(t)
	s, err := At(file, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Name(0); got != "case 2 (`out <- v`, line 7)" {
		t.Errorf("Name(0) = %q", got)
	}
	if s, err := At(file, 13); err != nil || s.Name(0) != "case 1 (`out <- v`, line 13)" {
		t.Errorf("one case and default, at its case line: %v", err)
	}
	if _, err := At(file, 5); err == nil {
		t.Error("a line without a select")
	}
}

func TestClauseLines(t *testing.T) {
	file := writeSource(t)
	for _, tc := range []struct {
		line int
		want []int
	}{{4, []int{5, 7, 8, 9}}, {13, []int{13, 14}}, {11, []int{11, 11}}, {6, nil}} {
		if got := ClauseLines(file, tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("ClauseLines(%d) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestFindNonBlockingAtCaseLine(t *testing.T) {
	file := writeSource(t)
	// a one-case select with a default is recorded at its case's line
	s, err := Find(file, 13, []bool{true})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Source(0); c.Line != 13 || c.Text != "out <- v" {
		t.Errorf("case = %+v", c)
	}
	// written on one line: the select line is the case line
	if _, err := Find(file, 11, []bool{true}); err != nil {
		t.Error(err)
	}
}

func TestFindRejectsOtherCases(t *testing.T) {
	file := writeSource(t)
	for _, tc := range []struct {
		line  int
		sends []bool
	}{
		{4, []bool{false, false, false}}, // directions differ
		{4, []bool{true, false}},         // number of cases differs
		{5, []bool{false}},               // not a select line
		{16, []bool{true, false}},
	} {
		if s, err := Find(file, tc.line, tc.sends); err == nil {
			t.Errorf("Find(%d, %v) = %+v, want an error", tc.line, tc.sends, s)
		}
	}
	if _, err := Find(file, 4, []bool{false, true}); err == nil || !strings.Contains(err.Error(), "sends first") {
		t.Errorf("receive before send: err = %v", err)
	}
}

func TestNameFallsBackToRuntimeOrder(t *testing.T) {
	file := writeSource(t)
	got := Name(file, 17, []bool{true, false}, 1)
	if !strings.HasPrefix(got, "case 2 in the runtime's order, send cases first (") || !strings.Contains(got, "p.go:17 has no select with the recorded cases") {
		t.Errorf("changed source: %q", got)
	}
	got = Name(filepath.Join(t.TempDir(), "gone.go"), 4, []bool{true}, 0)
	if !strings.HasPrefix(got, "case 1 in the runtime's order") || !strings.Contains(got, "gone.go could not be read") {
		t.Errorf("missing source: %q", got)
	}
	if got := Name(file, 16, []bool{false, false}, 1); got != "case 2 (`<-done`, line 18)" {
		t.Errorf("matching source: %q", got)
	}
}

func TestFindSeesEdits(t *testing.T) {
	file := writeSource(t)
	if _, err := Find(file, 4, []bool{true, false, false}); err != nil {
		t.Fatal(err)
	}
	// the cases swapped places: a new file version is parsed again
	edited := strings.Replace(src, "\tcase x := <-in:\n\t\t_ = x\n\tcase out <- v:\n", "\tcase out <- v:\n\tcase x := <-in:\n\t\t_ = x\n\t\t_ = x\n", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Find(file, 4, []bool{true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Name(0); got != "case 1 (`out <- v`, line 5)" {
		t.Errorf("after the edit Name(0) = %q", got)
	}
}

// Lookups share one parse per file version; each gets its own mapping (campaigns analyze
// runs in parallel).
func TestFindConcurrent(t *testing.T) {
	file := writeSource(t)
	done := make(chan string)
	for _, sends := range [][]bool{{true, false, false}, {false, false}} {
		for range 4 {
			go func() {
				line := 4
				if len(sends) == 2 {
					line = 16
				}
				s, err := Find(file, line, sends)
				if err != nil {
					done <- err.Error()
					return
				}
				done <- s.Name(1)
			}()
		}
	}
	count := map[string]int{}
	for range 8 {
		count[<-done]++
	}
	if count["case 1 (`x := <-in`, line 5)"] != 4 || count["case 2 (`<-done`, line 18)"] != 4 {
		t.Errorf("names %v", count)
	}
}

// BenchmarkFind is the cost of naming one case of a parsed file (the parse is cached).
func BenchmarkFind(b *testing.B) {
	file := filepath.Join(b.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	sends := []bool{true, false, false}
	for b.Loop() {
		if _, err := Find(file, 4, sends); err != nil {
			b.Fatal(err)
		}
	}
}
