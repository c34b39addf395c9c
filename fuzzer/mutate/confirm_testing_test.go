package mutate

import (
	"reflect"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// A worker's t.Log unordered with the test's end: the confirmation admits the end, then
// the use. A use of another test's T is no candidate.
func TestConfirmTestUsedAfterEnd(t *testing.T) {
	b := newBuilder()
	b.spawn(2, 3, 29)
	use := b.op(3, trace.KindTestUse, 7, 31)
	b.op(3, trace.KindTestUse, 8, 31) // another test's T
	end := b.op(2, trace.KindTestEnd, 7, 27)
	r := b.run()
	rws, err := Confirm(r, claim("t-used-after-test", "use", 31, "test", 27))
	if err != nil {
		t.Fatal(err)
	}
	if len(rws) != 1 {
		t.Fatalf("%d rewrites, want 1", len(rws))
	}
	want := []schedule.OpID{r.Names.Ops[end], r.Names.Ops[use]}
	if got := orderOf(t, rws[0].Schedule); !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want the end then the use %v", got, want)
	}
}

// A use the test waited for (a send after it, whose value the test received before its
// end) has no confirmation.
func TestConfirmTestUsedBeforeEnd(t *testing.T) {
	b := newBuilder()
	b.add(trace.Event{Kind: trace.KindChanMake, G: 2, Obj: 5, Pos: 28})
	b.spawn(2, 3, 29)
	b.op(3, trace.KindTestUse, 7, 31)
	b.send(3, 5, 32, 1, 0, 0)
	b.recv(2, 5, 34, 1)
	b.op(2, trace.KindTestEnd, 7, 27)
	if _, err := Confirm(b.run(), claim("t-used-after-test", "use", 31, "test", 27)); err == nil {
		t.Error("a use ordered before the end was given a confirmation schedule")
	}
}
