package campaign

import (
	"fmt"
	"strings"
	"testing"
)

// bigSchedule is a schedule like the proposals from one recorded run of n operations:
// the run's order up to cut with the two operations there swapped (then the run is free),
// and a select preference that differs by variant.
func bigSchedule(n, cut, variant int) string { return bigScheduleOf(0, n, cut, variant) }

// bigScheduleOf is bigSchedule for the recorded run numbered run.
func bigScheduleOf(run, n, cut, variant int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goweave-schedule 1\nfile 1 /src/x_test.go\nselect 1:9 100 %d\norder 200\n", variant%3)
	op := func(i int) { fmt.Fprintf(&b, "op 1.%d 4 1:%d %d\n", 1+i%2, 10+i%7, run*100000+i) }
	for i := range cut {
		op(i)
	}
	op(cut + 1)
	op(cut)
	b.WriteString("end\n")
	return b.String()
}

// Schedules that share most of their lines with an earlier one are stored as a few edits
// of it, and rebuilt exactly.
func TestCompactQueue(t *testing.T) {
	var c compactor
	var total, stored int
	for v := range 20 {
		recipe := bigSchedule(2000, 2000-v*40, v)
		base, edits := c.add(recipe)
		total += len(recipe)
		if edits == nil {
			stored += len(recipe)
			if c.bases[base-1] != recipe {
				t.Fatalf("variant %d: base %d is not the schedule", v, base)
			}
			continue
		}
		stored += editsSize(edits)
		got, ok := expand(c.bases[base-1], edits)
		if !ok || got != recipe {
			t.Fatalf("variant %d: rebuilt schedule differs (ok %v)", v, ok)
		}
	}
	if len(c.bases) != 1 || stored > total/10 {
		t.Errorf("%d bases, %d of %d bytes stored", len(c.bases), stored, total)
	}
	if _, ok := expand("a\n", []lineEdit{{From: 0, N: 2}}); ok {
		t.Error("edits past the base's end accepted")
	}
}
