package campaign

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A -race campaign turns the race detector's reports into findings: a variable race as
// data-race with the write first. The send/close race is also in the trace (the send
// panicked): the trace's actual finding is kept, the race detector's adds nothing.
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
		source := "trace"
		if strings.Contains(f.Message, "(race detector)") {
			source = "race"
		}
		got[f.Kind+" "+f.Test] = source + " " + strings.Join(pos, " ")
	}
	want := map[string]string{
		"data-race TestCounterRace":        "race write@12 conflicting read@15",
		"send-on-closed TestSendCloseRace": "trace send@24 close@26",
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

// A race report as the race detector prints it (trimmed): a send racing a close, then the
// goroutine creation sections, which name other lines that must not be taken for accesses.
var sendCloseReport = []string{
	"Read at 0x00c00006a310 by goroutine 10:",
	"  runtime.chansend()",
	"      /usr/local/go/src/runtime/chan.go:176 +0x0",
	"  app.TestRace.func2()",
	"      /src/app/r_test.go:13 +0x44",
	"",
	"Previous write at 0x00c00006a310 by goroutine 8:",
	"  runtime.closechan()",
	"      /usr/local/go/src/runtime/chan.go:414 +0x0",
	"  app.TestRace()",
	"      /src/app/r_test.go:14 +0x1a4",
	"  testing.tRunner()",
	"      /usr/local/go/src/testing/testing.go:2036 +0x21c",
	"",
	"Goroutine 10 (running) created at:",
	"  app.TestRace()",
	"      /src/app/r_test.go:12 +0x199",
}

func TestRaceFindingsFromReport(t *testing.T) {
	fs := raceFindings([][]string{sendCloseReport, {"garbage"}}, "/src/app")
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1: %+v", len(fs), fs)
	}
	f := fs[0]
	if f.Kind != "send-on-closed" || f.Confidence != "predicted" || len(f.Positions) != 2 ||
		f.Positions[0].Line != 13 || f.Positions[1].Line != 14 || f.Positions[0].Role != "send" {
		t.Errorf("finding %+v", f)
	}
	// Outside the module nothing is user code: no finding.
	if fs := raceFindings([][]string{sendCloseReport}, "/elsewhere"); len(fs) != 0 {
		t.Errorf("findings outside the module: %+v", fs)
	}
}
