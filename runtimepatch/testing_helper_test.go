package runtimepatch

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

// testdata/dephelper: a module (app) whose tests fail through an assertion library in another
// module (check, through a replace directive), as testify's assert and require do, and
// through its own t.Helper() functions.

// TestDependencyHelperFailure: a failure reported from a dependency's frames or from a
// function marked t.Helper() is the module's TestUse at the line go test names: the first
// frame of the module under test that is not a helper, on the test's goroutine or another;
// require's Errorf and FailNow both. Nothing is recorded at the dependency's lines.
func TestDependencyHelperFailure(t *testing.T) {
	pkg := filepath.Join("dephelper", "app")
	app := filepath.Join(testdataDir(t), pkg)
	bin, err := buildTestdata(t, pkg, filepath.Join(workDir, "dephelper.test"))
	if err != nil {
		failBuild(t, err)
	}
	tr := record(t, bin, "TestDependencyHelpers", nil, EnvModule+"="+app).tr
	want := map[string][]uint64{
		"dh.equal":     {4}, // Errorf
		"dh.noerror":   {4},
		"dh.helper":    {4},
		"dh.mine":      {4},
		"dh.direct":    {3}, // Error
		"dh.goroutine": {4},
		"dh.require":   {4, 11}, // Errorf, FailNow
	}
	byPos := make(map[string]string)
	for name, pos := range markersIn(t, pkg) {
		byPos[pos] = name
	}
	got := make(map[string][]uint64)
	var end trace.Event
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.KindTestEnd:
			end = e
		case trace.KindTestUse:
			p := tr.Position(e.Pos).String()
			name, ok := byPos[p]
			if !ok {
				t.Errorf("TestUse %d at %s, not at a marker of the module's calls", e.A, p)
				continue
			}
			got[name] = append(got[name], e.A)
		}
	}
	for name, methods := range want {
		g := got[name]
		sort.Slice(g, func(i, j int) bool { return g[i] < g[j] })
		if !slices.Equal(g, methods) {
			t.Errorf("@%s: TestUse methods %v, want %v", name, g, methods)
		}
	}
	for _, e := range tr.Events {
		if e.Kind == trace.KindTestUse && (e.Obj == 0 || e.Obj != end.Obj || e.Flags != 0) {
			t.Errorf("TestUse %+v: want the user's own use of the test %d", e, end.Obj)
		}
		if p := tr.Position(e.Pos).String(); e.Pos != 0 && !strings.HasPrefix(p, app+string(filepath.Separator)) {
			t.Errorf("%s at %s: outside the module", e.Kind, p)
		}
	}
	if t.Failed() {
		t.Log(dump(tr))
	}
}
