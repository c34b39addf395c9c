package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// TestReplayPrintsFewPreferences: a whole-run recipe prefers a case in every select it ran;
// goweave replay prints the first few and how many more, all of them with -v.
func TestReplayPrintsFewPreferences(t *testing.T) {
	var s schedule.Schedule
	for line := 1; line <= 30; line++ {
		s.Selects = append(s.Selects, schedule.SelectPreference{Pos: schedule.Pos{File: "/nonexistent/p.go", Line: line}, Cases: []int{0}})
	}
	text, err := schedule.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	rec := &fuzzer.Recipe{Schedule: string(text)}
	count := func(verbose bool) (int, string) {
		var b strings.Builder
		printReplay(&b, rec, replayOutput{}, verbose)
		return strings.Count(b.String(), " prefers "), b.String()
	}
	if n, out := count(false); n != maxReplaySteering-1 || !strings.Contains(out, fmt.Sprintf("and %d more select preferences", 30-maxReplaySteering+1)) {
		t.Errorf("without -v: %d preference lines, want %d and the rest counted:\n%s", n, maxReplaySteering-1, out)
	}
	if n, out := count(true); n != 30 {
		t.Errorf("with -v: %d preference lines, want 30:\n%s", n, out)
	}
}
