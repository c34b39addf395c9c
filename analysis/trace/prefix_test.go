package trace

import (
	"path/filepath"
	"testing"
)

// ReadFilePrefix keeps the first events (a select with all its cases), counts the rest in
// Cut and META "dropped", and maps a goroutine's newest event past the cut to none.
func TestReadFilePrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trace")
	tr := sampleTrace()
	tr.Meta["dropped"] = "10" // the recorder's own loss adds up with the cut
	if err := WriteFile(path, tr); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit, events int
		cut           uint64
		dropped       string
		last          [2]int
	}{
		{0, 5, 0, "10", [2]int{3, 4}},
		{9, 5, 0, "10", [2]int{3, 4}},
		{3, 3, 2, "12", [2]int{-1, -1}}, // the select at event 2 and its 2 case records kept, the send and the receive cut
		{4, 4, 1, "11", [2]int{3, -1}},
	} {
		got, err := ReadFilePrefix(path, c.limit)
		if err != nil {
			t.Fatalf("limit %d: %v", c.limit, err)
		}
		if len(got.Events) != c.events || got.Cut != c.cut || got.Meta["dropped"] != c.dropped {
			t.Errorf("limit %d: %d events, cut %d, dropped %q; want %d, %d, %q", c.limit, len(got.Events), got.Cut, got.Meta["dropped"], c.events, c.cut, c.dropped)
		}
		if c.events > 2 && len(got.Events[2].Cases) != 2 {
			t.Errorf("limit %d: the select kept %d of its 2 cases", c.limit, len(got.Events[2].Cases))
		}
		if l := [2]int{got.Goroutines[0].LastEvent, got.Goroutines[1].LastEvent}; l != c.last {
			t.Errorf("limit %d: last events %v, want %v", c.limit, l, c.last)
		}
	}
}
