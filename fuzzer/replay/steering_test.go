package replay

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func TestSelectSteering(t *testing.T) {
	const src = "package p\n\nfunc f(in, out chan int) {\n\tselect {\n\tcase <-in:\n\tcase out <- 1:\n\tdefault:\n\t}\n}\n"
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	encode := func(pos schedule.Pos, cases ...int) string {
		b, err := schedule.Marshal(&schedule.Schedule{Selects: []schedule.SelectPreference{{Pos: pos, Window: 30 * time.Millisecond, Cases: cases}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// runtime case 0 is the send (written second), 1 the receive
	got := SelectSteering(encode(schedule.Pos{File: file, Line: 4}, 0, 0, schedule.CaseFree, 1, schedule.CaseDefault, 0))
	want := []string{
		"select p.go:4 prefers case 2 (`out <- 1`, line 6) in executions 1-2, 6",
		"select p.go:4 prefers case 1 (`<-in`, line 5) in execution 4",
		"select p.go:4 prefers no case (default) in execution 5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("steering\n%q\nwant\n%q", got, want)
	}
	// Two schedules (a predicted finding's rewrites), one empty; a select the source no
	// longer has: the runtime's number, and why.
	got = SelectSteering("", encode(schedule.Pos{File: file, Line: 5}, 1))
	want = []string{"rewrite 2: select p.go:5 prefers case 2 in the runtime's order, send cases first (p.go:5 has no select with the recorded cases; the source may have changed since the run) in execution 1"}
	if !slices.Equal(got, want) {
		t.Errorf("steering\n%q\nwant\n%q", got, want)
	}
}

func TestExecutions(t *testing.T) {
	for _, tc := range []struct {
		ns   []int
		want string
	}{{[]int{2}, "execution 2"}, {[]int{1, 2, 3}, "executions 1-3"}, {[]int{1, 2, 4, 6, 7}, "executions 1-2, 4, 6-7"},
		{[]int{1, 3, 5, 7, 9, 11, 13, 15, 17, 18, 19}, "executions 1, 3, 5, 7, 9, 11, 13, 15, ... (11 in all)"}} {
		if got := executions(tc.ns); got != tc.want {
			t.Errorf("executions(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}

func TestSteeringOfFinding(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.go")
	if err := os.WriteFile(file, []byte("package p\n\nfunc f(in, out chan int) {\n\tselect {\n\tcase <-in:\n\tcase out <- 1:\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := schedule.Marshal(&schedule.Schedule{Selects: []schedule.SelectPreference{{Pos: schedule.Pos{File: file, Line: 4}, Window: time.Millisecond, Cases: []int{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	sched := filepath.Join(dir, "run.schedule")
	if err := os.WriteFile(sched, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var f campaign.Finding
	f.Kind, f.Confidence, f.Replay = "select-case-without-partner", "actual", sched
	if got := Steering(f); !slices.Equal(got, []string{"select p.go:4 prefers case 1 (`<-in`, line 5) in execution 1"}) {
		t.Errorf("steering %q", got)
	}
	f.Replay = ""
	if got := Steering(f); got != nil {
		t.Errorf("no schedule: steering %q", got)
	}
}

func TestAtMost(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e", "f"}
	if got := AtMost(lines, 4, "goweave replay lists them"); !slices.Equal(got, []string{"a", "b", "c", "and 3 more select preferences (goweave replay lists them)"}) {
		t.Errorf("AtMost(6 lines, 4) = %q", got)
	}
	if got := AtMost(lines[:4], 4, "goweave replay lists them"); !slices.Equal(got, lines[:4]) {
		t.Errorf("AtMost(4 lines, 4) = %q", got)
	}
}
