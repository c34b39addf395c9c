package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
	"github.com/goweave/goweave/analysis/selectcase"
	"github.com/goweave/goweave/fuzzer"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A replay's schedule numbers select cases as the runtime does, send cases first
// (fuzzer/schedule/FORMAT.md); the replay tells people which case it steers each select
// to as they wrote it, read from the source (package analysis/selectcase).

// selectSteering describes the select preferences of the schedules a replay of rec runs:
// one line per select and preferred case, "select pipe.go:20 prefers case 2 (`out <- v`,
// line 23) in executions 1-3".
func selectSteering(rec *fuzzer.Recipe) []string {
	schedules := []string{rec.Schedule}
	if rec.Finding.Confidence == analysis.Predicted && len(rec.Confirm) > 0 {
		schedules = rec.Confirm
	}
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
	return "executions " + strings.Join(parts, ", ")
}
