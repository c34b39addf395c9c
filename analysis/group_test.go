package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func pos(role, at string) Position {
	file, line, _ := strings.Cut(at, ":")
	n, _ := strconv.Atoi(line)
	return Position{Role: role, File: "/m/" + file, Line: n}
}

func finding(kind string, conf Confidence, ps ...Position) Finding {
	f := Finding{Kind: kind, Confidence: conf, Positions: ps}
	f.Fingerprint = fmt.Sprint(kind, conf, ps)
	return f
}

// The examples/ module's campaign before grouping: 9 findings of 4 bugs.
var examplesFindings = []Finding{
	0: finding("negative-waitgroup", Actual, pos("done", "crawler.go:23")),
	1: finding("negative-waitgroup", Confirmed, pos("done", "crawler.go:23"), pos("add", "crawler.go:29")),
	2: finding("negative-waitgroup", Actual, pos("done", "crawler.go:23"), pos("previous add or done", "crawler.go:23")),
	3: finding("deadlock", Actual, pos("blocked", "inventory.go:34"), pos("also blocked", "inventory.go:47"), pos("also blocked", "inventory_test.go:20")),
	4: finding("cyclic-deadlock", Confirmed, pos("lock", "inventory.go:47"), pos("held lock", "inventory.go:44"), pos("held lock", "inventory.go:31"), pos("lock", "inventory.go:34")),
	5: finding("deadlock", Actual, pos("blocked", "inventory.go:47"), pos("also blocked", "inventory.go:34"), pos("also blocked", "inventory_test.go:20")),
	6: finding("deadlock", Actual, pos("blocked", "inventory_test.go:20"), pos("also blocked", "inventory.go:47"), pos("also blocked", "inventory.go:34")),
	7: finding("send-on-closed", Confirmed, pos("send", "metrics.go:38"), pos("close", "metrics.go:43")),
	8: finding("leak-chan", Actual, pos("blocked", "replicas.go:25"), pos("partner", "replicas.go:28")),
}

func TestGroupExamples(t *testing.T) {
	bugs := Group(examplesFindings)
	want := []Bug{
		{Cause: 1, Others: []int{0, 2}, Confidence: Confirmed},
		{Cause: 4, Others: []int{3, 5, 6}, Confidence: Confirmed},
		{Cause: 7, Confidence: Confirmed},
		{Cause: 8, Confidence: Actual},
	}
	if !slices.EqualFunc(bugs, want, func(a, b Bug) bool {
		return a.Cause == b.Cause && slices.Equal(a.Others, b.Others) && a.Confidence == b.Confidence
	}) {
		t.Errorf("Group(examples) = %+v, want %+v", bugs, want)
	}
}

// Each rule on its own, and what no rule links.
func TestGroupRules(t *testing.T) {
	cases := []struct {
		name     string
		findings []Finding
		want     [][]int // bugs: cause first, then the others
		conf     []Confidence
	}{
		{"actual and predicted instance of one operation",
			[]Finding{finding("send-on-closed", Predicted, pos("send", "a.go:5"), pos("close", "a.go:9")), finding("send-on-closed", Actual, pos("send", "a.go:5"), pos("close", "b.go:2"))},
			[][]int{{1, 0}}, []Confidence{Actual}},
		{"same kind, other lines",
			[]Finding{finding("send-on-closed", Actual, pos("send", "a.go:5")), finding("send-on-closed", Actual, pos("send", "a.go:6"))},
			[][]int{{0}, {1}}, []Confidence{Actual, Actual}},
		{"other kinds on one line",
			[]Finding{finding("leak-chan", Actual, pos("blocked", "a.go:5")), finding("send-on-closed", Predicted, pos("send", "a.go:5"))},
			[][]int{{0}, {1}}, []Confidence{Actual, Predicted}},
		{"a predicted cycle that got stuck in another run",
			[]Finding{
				finding("deadlock", Actual, pos("blocked", "a.go:10"), pos("also blocked", "a.go:20")),
				finding("cyclic-deadlock", Predicted, pos("lock", "a.go:20"), pos("held lock", "a.go:19"), pos("held lock", "a.go:9"), pos("lock", "a.go:10")),
			},
			[][]int{{1, 0}}, []Confidence{Actual}},
		{"one cycle found from either goroutine",
			[]Finding{
				finding("cyclic-deadlock", Predicted, pos("lock", "a.go:20"), pos("held lock", "a.go:19"), pos("held lock", "a.go:9"), pos("lock", "a.go:10")),
				finding("cyclic-deadlock", Predicted, pos("lock", "a.go:10"), pos("held lock", "a.go:9"), pos("held lock", "a.go:19"), pos("lock", "a.go:20")),
			},
			[][]int{{1, 0}}, []Confidence{Predicted}}, // equal rank: the lower fingerprint is the cause
		{"goroutines a cycle left blocked",
			[]Finding{
				finding("leak-mutex", Actual, pos("blocked", "a.go:10"), pos("held lock", "a.go:19")),
				finding("mixed-deadlock", Predicted, pos("channel operation", "a.go:10"), pos("partner's lock", "a.go:30"), pos("held lock", "a.go:19")),
				finding("leak-mutex", Actual, pos("blocked", "a.go:30")),
			},
			[][]int{{1, 0, 2}}, []Confidence{Actual}},
		{"a deadlock elsewhere stays apart",
			[]Finding{
				finding("cyclic-deadlock", Predicted, pos("lock", "a.go:20"), pos("held lock", "a.go:19"), pos("held lock", "a.go:9"), pos("lock", "a.go:10")),
				finding("deadlock", Actual, pos("blocked", "b.go:3"), pos("also blocked", "a.go:10")),
			},
			[][]int{{0}, {1}}, []Confidence{Predicted, Actual}},
		{"a panic and the bug that explains it",
			[]Finding{finding("flaky-panic", Actual, pos("panic", "crawler.go:23")), finding("negative-waitgroup", Predicted, pos("done", "crawler.go:23"), pos("add", "crawler.go:29"))},
			[][]int{{1, 0}}, []Confidence{Actual}},
		{"symptoms alone are not linked by their line",
			[]Finding{finding("flaky-panic", Actual, pos("panic", "a.go:3")), finding("hang", Actual, pos("blocked", "a.go:3"))},
			[][]int{{0}, {1}}, []Confidence{Actual, Actual}},
	}
	for _, c := range cases {
		bugs := Group(c.findings)
		var got [][]int
		var conf []Confidence
		for _, b := range bugs {
			got = append(got, append([]int{b.Cause}, b.Others...))
			conf = append(conf, b.Confidence)
		}
		if !slices.EqualFunc(got, c.want, slices.Equal) || !slices.Equal(conf, c.conf) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, got, conf, c.want, c.conf)
		}
	}
}

// Rule 7: a symptom joins the bug that happened in exactly its runs, not one that only
// was predicted, and not without the campaign's run records.
func TestGroupSameRuns(t *testing.T) {
	fs := []Finding{
		finding("recv-on-closed", Confirmed, pos("receive", "a.go:46"), pos("close", "a.go:33")),
		finding("flaky-panic", Actual, pos("panic", "a.go:47")),
		finding("leak-chan", Actual, pos("blocked", "b.go:9")),
		finding("send-on-closed", Predicted, pos("send", "c.go:5")),
	}
	same := func(symptom int, bug []int) bool { // the panic happened in the runs of the recv-on-closed
		return symptom == 1 && slices.Contains(bug, 0)
	}
	bugs := GroupWith(fs, same)
	if len(bugs) != 3 || bugs[0].Cause != 0 || !slices.Equal(bugs[0].Others, []int{1}) {
		t.Errorf("GroupWith = %+v, want the panic in the recv-on-closed's bug only", bugs)
	}
	if bugs := Group(fs); len(bugs) != 4 {
		t.Errorf("Group without run records = %+v, want 4 bugs", bugs)
	}
}

// The bugs and their causes do not depend on the order the findings come in.
func TestGroupOrderIndependent(t *testing.T) {
	describe := func(fs []Finding) []string {
		var out []string
		for _, b := range Group(fs) {
			var others []string
			for _, i := range b.Others {
				others = append(others, fs[i].Fingerprint)
			}
			slices.Sort(others)
			out = append(out, fs[b.Cause].Fingerprint+" <- "+strings.Join(others, ", "))
		}
		slices.Sort(out)
		return out
	}
	want := describe(examplesFindings)
	reversed := slices.Clone(examplesFindings)
	slices.Reverse(reversed)
	rotated := append(slices.Clone(examplesFindings[4:]), examplesFindings[:4]...)
	for _, fs := range [][]Finding{reversed, rotated} {
		if got := describe(fs); !slices.Equal(got, want) {
			t.Errorf("reordered: %v, want %v", got, want)
		}
	}
}

// A flaky failure logged in a helper without t.Helper is each calling test's: two tests'
// failures at the helper's line are two bugs; at a line of one Test function, one.
func TestGroupFailuresInHelperPerTest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h_test.go")
	src := "package h\n\nimport \"testing\"\n\nfunc check(t *testing.T) {\n\tt.Error(\"no\")\n}\n\nfunc TestA(t *testing.T) {\n\tcheck(t)\n\tt.Error(\"own\")\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	failure := func(test string, line int) Finding {
		return Finding{Kind: "flaky-failure", Confidence: Actual, Package: "h", Test: test, Positions: []Position{{Role: "failure", File: file, Line: line}}}
	}
	if bugs := Group([]Finding{failure("TestA", 6), failure("TestB", 6)}); len(bugs) != 2 {
		t.Errorf("failures of TestA and TestB in the helper: %d bugs, want 2", len(bugs))
	}
	if bugs := Group([]Finding{failure("TestA", 11), failure("TestA", 11)}); len(bugs) != 1 {
		t.Errorf("one line of TestA: %d bugs, want 1", len(bugs))
	}
}
