package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

func TestCalledName(t *testing.T) {
	for fn, want := range map[string]string{
		"example.com/pool.(*Pool).Go.func1":     "Go",
		"example.com/pool.(*Pool).Wait":         "Wait",
		"example.com/pool.Pool.Len":             "Len",
		"example.com/pool.Pool.Len.func2":       "Len",
		"example.com/pool.run":                  "run",
		"example.com/pool.run.func1.1":          "run",
		"example.com/pool.Map[...]":             "Map",
		"example.com/pool.(*Set[...]).Add":      "Add",
		"example.com/pool.init.func1":           "",
		"example.com/pool.glob..func1":          "",
		"example.com/pool.TestX.func1":          "TestX",
		"main":                                  "",
		"example.com/deep/pkg.(*T).M.func1.2":   "M",
		"example.com/deep/pkg.T.M":              "M",
		"example.com/deep/pkg.F[...].func1":     "F",
		"example.com/deep/pkg.(*T[...]).M[...]": "M",
	} {
		if got := calledName(fn); got != want {
			t.Errorf("calledName(%q) = %q, want %q", fn, got, want)
		}
	}
}

// An Add/Wait race inside a library (pool.go) found by a test: the finding names the
// library's Add and Wait, then the test's calls of Go and Wait.
func TestAddWaitTestCalls(t *testing.T) {
	dir := t.TempDir()
	test := "package pool\n\nimport \"testing\"\n\nfunc TestPool(t *testing.T) {\n\tvar p Pool\n\tp.Go(func() {})\n\tp.Wait()\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "pool_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	b := tracetest.New()
	m := b.Main()
	wg := b.WaitGroup()
	w := m.Go(filepath.Join(dir, "pool.go") + ":13")
	w.Add(wg, 1, filepath.Join(dir, "pool.go")+":14")
	w.Done(wg, filepath.Join(dir, "pool.go")+":15")
	m.Wait(wg, filepath.Join(dir, "pool.go")+":22")
	tr := b.Trace()
	for k, fn := range []string{"", "m.(*Pool).Go.func1", "", "m.(*Pool).Wait"} {
		if k < len(tr.Positions) && fn != "" {
			tr.Positions[k].Func = fn
		}
	}
	r, err := AnalyzeWith(tr, Options{Test: "TestPool", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := want(t, r, "data-race", Predicted, "pool.go:14", "wait=pool.go:22", "test's call of Go=pool_test.go:7", "test's call of Wait=pool_test.go:8")
	if len(f.Positions) != 4 {
		t.Errorf("positions %+v", f.Positions)
	}
}
