package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/fuzzer/campaign"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A replay's schedule numbers select cases as the runtime does, send cases first
// (fuzzer/schedule/FORMAT.md); goweave replay and the language server tell people which
// case it steers each select to as they wrote it, read from the source (package
// analysis/selectcase).

// SelectSteering describes the select preferences of schedules (fuzzer/schedule format;
// empty or undecodable ones are skipped) for people: one line per select and preferred
// case, "select pipe.go:20 prefers case 2 (`out <- v`, line 23) in executions 1-3",
// prefixed "rewrite k: " when there are several schedules.
func SelectSteering(schedules ...string) []string {
	var out []string
	for k, text := range schedules {
		s, err := schedule.Unmarshal([]byte(text))
		if text == "" || err != nil {
			continue
		}
		prefix := ""
		if len(schedules) > 1 {
			prefix = fmt.Sprintf("rewrite %d: ", k+1)
		}
		for _, sp := range s.Selects {
			out = append(out, preferenceLines(prefix, sp)...)
		}
	}
	return out
}

// Steering describes, as SelectSteering, the select preferences of the schedule Replay
// runs for f: its recipe's, else the schedule of the run that found it. nil for a predicted finding that
// Replay confirms with rewrites it builds then, and when f has no schedule.
func Steering(f campaign.Finding) []string {
	if campaign.Confirmable(&f) && f.Trace != "" {
		return nil
	}
	if s := recipeSchedule(f); s != nil {
		return AtMost(SelectSteering(string(s)), maxSteeringLines, "goweave replay lists them")
	}
	if f.Replay == "" {
		return nil
	}
	text, err := os.ReadFile(f.Replay)
	if err != nil {
		return nil
	}
	return SelectSteering(string(text))
}

// maxSteeringLines bounds what Steering says of a recipe: one that replays a whole run has
// a preference for every select the run executed, too many for one editor message.
const maxSteeringLines = 4

// AtMost is SelectSteering's lines cut to n, the last saying how many were left out and,
// in parentheses, how to see them all.
func AtMost(lines []string, n int, seeAll string) []string {
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n-1:n-1], fmt.Sprintf("and %d more select preferences (%s)", len(lines)-n+1, seeAll))
}

// preferenceLines describes one select's preference list, one line per preferred case.
func preferenceLines(prefix string, sp schedule.SelectPreference) []string {
	sel, err := selectcase.At(sp.Pos.File, sp.Pos.Line)
	name := func(c int) string {
		switch {
		case c == schedule.CaseDefault:
			return "no case (default)"
		case err == nil:
			return sel.Name(c)
		}
		return fmt.Sprintf("case %d in the runtime's order, send cases first (%v)", c+1, err)
	}
	execs := map[int][]int{} // preferred case -> executions (1-based)
	var order []int
	for i, c := range sp.Cases {
		if c == schedule.CaseFree {
			continue
		}
		if _, ok := execs[c]; !ok {
			order = append(order, c)
		}
		execs[c] = append(execs[c], i+1)
	}
	var out []string
	for _, c := range order {
		out = append(out, fmt.Sprintf("%sselect %s:%d prefers %s in %s", prefix, filepath.Base(sp.Pos.File), sp.Pos.Line, name(c), executions(execs[c])))
	}
	return out
}

// executions renders ascending execution numbers with runs collapsed: "executions 1-3, 5".
func executions(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(ns[i])+"-"+strconv.Itoa(ns[j]))
		} else {
			parts = append(parts, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	if len(ns) == 1 {
		return "execution " + parts[0]
	}
	// A whole-run recipe prefers a case at thousands of scattered executions: the first few
	// ranges and the count say as much as a line of many kilobytes.
	if len(parts) > maxExecutionRanges {
		return fmt.Sprintf("executions %s, ... (%d in all)", strings.Join(parts[:maxExecutionRanges], ", "), len(ns))
	}
	return "executions " + strings.Join(parts, ", ")
}

// maxExecutionRanges bounds the ranges executions lists.
const maxExecutionRanges = 8
