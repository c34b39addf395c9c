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

// manyEdits is a schedule of n operations of run 1 against a base of run 0: every
// operation line differs from the base, and the repeated "end"-like lines occur in the base
// at many places, so the diff inserts long stretches and searches long position lists.
func manyEdits(n int) (base, recipe string) {
	var b, r strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "op 1.1 4 1:%d %d\nmark\n", i%7, i)
		fmt.Fprintf(&r, "op 1.2 4 1:%d %d\n", i%7, 500000+i)
		if i%5000 == 0 {
			r.WriteString("mark\n")
		}
	}
	return b.String(), r.String()
}

// A schedule made mostly of lines the base lacks is rebuilt exactly from its edits.
func TestCompactManyInserts(t *testing.T) {
	base, recipe := manyEdits(20000)
	var c compactor
	c.add(base)
	edits := c.diff(0, splitLines(recipe))
	got, ok := expand(base, edits)
	if !ok || got != recipe {
		t.Fatalf("rebuilt schedule differs (ok %v, %d edits)", ok, len(edits))
	}
	for i := 1; i < len(edits); i++ {
		if edits[i].N == 0 && edits[i-1].N == 0 {
			t.Fatalf("edits %d and %d are both insertions: one insertion per stretch", i-1, i)
		}
	}
}

// BenchmarkCompactManyInserts: one diff of a 20K-operation schedule (about 0.6 MB) that
// shares almost no line with its base. Appending each inserted line to a string took time
// squared in the stretch's length (minutes for the 777 KB schedules of golang/sync's
// TestMapMatchesRWMutex when its state was saved).
func BenchmarkCompactManyInserts(b *testing.B) {
	base, recipe := manyEdits(20000)
	var c compactor
	c.add(base)
	lines := splitLines(recipe)
	b.ResetTimer()
	for range b.N {
		c.diff(0, lines)
	}
}
