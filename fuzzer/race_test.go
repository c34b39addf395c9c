package fuzzer

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A -race campaign turns the race detector's reports into findings: a variable race as
// data-race with the write first, a send/close race as send-on-closed on the send.
func TestRaceFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with -race")
	}
	dir, _ := filepath.Abs("testdata/races")
	file := filepath.Join(dir, "races_test.go")
	rep, err := Fuzz(context.Background(), Config{Dir: dir, Race: true, RunsPerTest: 2, OutDir: t.TempDir(), RunTimeout: 20 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		var pos []string
		for _, p := range f.Positions {
			if p.File != file {
				t.Errorf("%s: position in %s", f.Kind, p.File)
			}
			pos = append(pos, p.Role+"@"+strconv.Itoa(p.Line))
		}
		got[f.Kind+" "+f.Test] = string(f.Confidence) + " " + strings.Join(pos, " ")
	}
	want := map[string]string{
		"data-race TestCounterRace":        "actual write@12 conflicting read@15",
		"send-on-closed TestSendCloseRace": "predicted send@24 close@26",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: positions %q, want %q", k, got[k], w)
		}
	}
	if len(rep.Findings) != len(want) {
		t.Errorf("findings %v, want one per race (deduplicated over runs)", got)
	}
}
