package runtimepatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

// goweave's runtime keeps the ids of sync objects outside them
// (_patch/runtime/zz_goweave_objid.go): the sync types keep the stock
// layout, and an id stays one object's. testdata/objid holds the programs.

var (
	objidOnce sync.Once
	objidBin  string
	objidErr  error
)

func buildObjid(t testing.TB) string {
	t.Helper()
	objidOnce.Do(func() {
		objidBin, objidErr = buildTestdata(t, "objid", filepath.Join(workDir, "objid.test"), "-tags=goweave")
	})
	if objidErr != nil {
		failBuild(t, objidErr)
	}
	return objidBin
}

// runLayout runs TestLayout of bin and returns what it printed.
func runLayout(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := binCommand(ctx, bin, "-test.run=^TestLayout$", "-test.count=1").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	return strings.TrimSuffix(string(out), "PASS\n")
}

// TestSyncLayoutStock: every exported sync and sync/atomic type, and
// structs padded to a cache line by the size of one (as puzpuzpuz/xsync
// pads its buckets), have under goweave's runtime the size, alignment and
// field offsets the same toolchain gives them without it.
func TestSyncLayoutStock(t *testing.T) {
	patched := runLayout(t, buildObjid(t))
	dir := filepath.Join(testdataDir(t), "objid")
	ov, err := Prepare(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	plainBin := filepath.Join(t.TempDir(), "plain.test")
	cmd := ov.Command(context.Background(), "test", "-c", "-o", plainBin, ".")
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "GOFLAGS=", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain build: %v\n%s", err, b)
	}
	plain := runLayout(t, plainBin)
	if !strings.Contains(plain, "sync.Mutex size=") {
		t.Fatalf("the plain build printed no layout:\n%s", plain)
	}
	if patched != plain {
		t.Errorf("layout under goweave differs from the stock one\ngoweave:\n%s\nstock:\n%s", patched, plain)
	}
}

// recordObjid runs test name of testdata/objid with recording on.
func recordObjid(t *testing.T, name string) result {
	t.Helper()
	r := record(t, buildObjid(t), name, nil)
	if r.err != nil {
		t.Fatalf("%s: %v\n%s", name, r.err, r.output)
	}
	return r
}

// oneIn returns the single event of kind k at marker name of testdata/<pkg>.
func oneIn(t *testing.T, tr *trace.Trace, pkg string, k trace.Kind, name string) trace.Event {
	t.Helper()
	pos, ok := markersIn(t, pkg)[name]
	if !ok {
		t.Fatalf("no marker @%s in testdata/%s", name, pkg)
	}
	var evs []trace.Event
	for _, e := range tr.Events {
		if e.Kind == k && tr.Position(e.Pos).String() == pos {
			evs = append(evs, e)
		}
	}
	if len(evs) != 1 {
		t.Fatalf("%d %s events at @%s, want 1\n%s", len(evs), k, name, dump(tr))
	}
	return evs[0]
}

// TestObjectIDNotReused: a mutex allocated at the address of one the GC
// freed is another object, with another id (else the analysis would merge
// the two: false happens-before edges, false lock cycles).
func TestObjectIDNotReused(t *testing.T) {
	r := recordObjid(t, "TestReuse")
	if !strings.Contains(r.output, "REUSED") {
		t.Fatalf("the program did not report reusing the address:\n%s", r.output)
	}
	first := oneIn(t, r.tr, "objid", trace.KindLock, "reuse.first")
	second := oneIn(t, r.tr, "objid", trace.KindLock, "reuse.second")
	if first.Obj == 0 || second.Obj == 0 || first.Obj == second.Obj {
		t.Errorf("object ids: %d for the freed mutex, %d for the one at its address; want two distinct non-zero ids", first.Obj, second.Obj)
	}
}

// TestObjectIDFollowsStack: a mutex on a goroutine's stack keeps its id when
// the stack grows (and moves) between two of its operations.
func TestObjectIDFollowsStack(t *testing.T) {
	r := recordObjid(t, "TestStackMoves")
	if !strings.Contains(r.output, "MOVED") {
		t.Fatalf("the mutex did not move with the stack (not on it?):\n%s", r.output)
	}
	first := oneIn(t, r.tr, "objid", trace.KindTryLock, "stack.lock")
	again := oneIn(t, r.tr, "objid", trace.KindTryLock, "stack.again")
	if first.Obj == 0 || first.Obj != again.Obj {
		t.Errorf("object ids: TryLock %d, TryLock %d after the stack grew; want one non-zero id", first.Obj, again.Obj)
	}
}

// TestObjectIDsOfDeadDropped: the ids of 20000 recorded mutexes that died
// are gone from the runtime's table after a GC (the program checks its
// counts), and the 20000 got distinct ids.
func TestObjectIDsOfDeadDropped(t *testing.T) {
	r := recordObjid(t, "TestDeadDropped")
	seen := map[uint64]bool{}
	for _, e := range r.tr.Events {
		if e.Kind == trace.KindLock {
			seen[e.Obj] = true
		}
	}
	if len(seen) < 20000 {
		t.Errorf("%d distinct object ids among the Locks, want 20000\n%s", len(seen), r.output)
	}
	if testing.Verbose() {
		os.Stdout.WriteString(r.output)
	}
}
