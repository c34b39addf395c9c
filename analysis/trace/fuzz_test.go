package trace

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzRead from the encoder")

// seedTraces are the valid traces the fuzz seed corpus is generated from.
func seedTraces() []*Trace {
	empty := &Trace{Meta: map[string]string{}}
	meta := &Trace{Meta: map[string]string{"exit": "deadlock", "message": "all goroutines are asleep - deadlock!"}}
	withEmpty := sampleTrace()
	withEmpty.Events = append(withEmpty.Events, Event{}) // an unfinished slot at the end
	return []*Trace{empty, meta, sampleTrace(), withEmpty}
}

// TestSeedCorpus checks that the checked-in seeds are what the encoder produces today
// (run with -update-seeds to regenerate them after a format change).
func TestSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	for i, tr := range seedTraces() {
		data := encode(t, tr)
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		path := filepath.Join(dir, fmt.Sprintf("seed%d", i))
		if *updateSeeds {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is stale or missing (run go test -run TestSeedCorpus -update-seeds): %v", path, err)
		}
	}
}

// FuzzRead: Read never panics; whatever it accepts re-encodes to a trace that reads back equal.
func FuzzRead(f *testing.F) {
	for _, tr := range seedTraces() {
		var buf bytes.Buffer
		Encode(&buf, tr)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Encode(&buf, tr); err != nil {
			t.Fatalf("accepted trace does not re-encode: %v", err)
		}
		again, err := Read(&buf)
		if err != nil {
			t.Fatalf("re-encoded trace rejected: %v", err)
		}
		for i := range tr.Events {
			if tr.Events[i].Kind == KindSelect {
				tr.Events[i].Aux = uint16(len(tr.Events[i].Cases))
			}
		}
		if !reflect.DeepEqual(normal(tr), normal(again)) {
			t.Fatalf("re-encoded trace differs")
		}
	})
}

// normal clears what encoding legitimately changes: empty and nil slices.
func normal(t *Trace) *Trace {
	c := *t
	c.Events = append([]Event{}, t.Events...)
	for i := range c.Events {
		if len(c.Events[i].Cases) == 0 {
			c.Events[i].Cases = nil
		}
	}
	if len(c.Positions) == 0 {
		c.Positions = nil
	}
	if len(c.Goroutines) == 0 {
		c.Goroutines = nil
	}
	return &c
}
