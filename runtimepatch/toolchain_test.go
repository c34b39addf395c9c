package runtimepatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goweave/goweave/analysis/trace"
)

func TestUnderModCache(t *testing.T) {
	for _, tt := range []struct {
		goroot, modcache string
		want             bool
	}{
		{"/root/go/pkg/mod/golang.org/toolchain@v0.0.1-go1.27.4.linux-amd64", "/root/go/pkg/mod", true},
		{"/root/go/pkg/mod/", "/root/go/pkg/mod", true},
		{"/usr/local/go", "/root/go/pkg/mod", false},
		{"/root/go/pkg/modx/toolchain", "/root/go/pkg/mod", false},
		{"/usr/local/go", "", false},
	} {
		if got := (Toolchain{GOROOT: tt.goroot, GOMODCACHE: tt.modcache}).underModCache(); got != tt.want {
			t.Errorf("GOROOT %s, GOMODCACHE %s: under = %v, want %v", tt.goroot, tt.modcache, got, tt.want)
		}
	}
}

// fakeGOROOT makes a directory with a GOROOT's top-level entries.
func fakeGOROOT(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"src/runtime", "bin", "pkg/tool"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte("go1.26.99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLinkedGOROOT(t *testing.T) {
	modcache := t.TempDir()
	tc := Toolchain{GOROOT: filepath.Join(modcache, "golang.org", "toolchain@v0.0.1-go1.26.99.linux-amd64"), GOVERSION: "go1.26.99", GOOS: "linux", GOARCH: "amd64", GOMODCACHE: modcache}
	fakeGOROOT(t, tc.GOROOT)
	root := t.TempDir()
	dir, err := linkedGOROOT(root, tc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(dir, modcache) {
		t.Errorf("linked GOROOT %s is in the module cache", dir)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "VERSION")); err != nil || string(data) != "go1.26.99\n" {
		t.Errorf("VERSION through the link: %q, %v", data, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "src", "runtime")); err != nil || !fi.IsDir() {
		t.Errorf("src/runtime through the link: %v", err)
	}
	// Reused as is; a damaged one is made again.
	if again, err := linkedGOROOT(root, tc); err != nil || again != dir {
		t.Errorf("second call: %s, %v; want %s", again, err, dir)
	}
	if err := os.Remove(filepath.Join(dir, "src")); err != nil {
		t.Fatal(err)
	}
	if again, err := linkedGOROOT(root, tc); err != nil || again != dir || !linksTo(dir, tc.GOROOT) {
		t.Errorf("after damage: %s, %v; complete %v", again, err, linksTo(dir, tc.GOROOT))
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("%d entries in %s, want the one linked GOROOT", len(entries), root)
	}
	// Another toolchain gets its own.
	tc2 := tc
	tc2.GOROOT, tc2.GOVERSION = filepath.Join(modcache, "golang.org", "toolchain@v0.0.1-go1.26.98.linux-amd64"), "go1.26.98"
	fakeGOROOT(t, tc2.GOROOT)
	if dir2, err := linkedGOROOT(root, tc2); err != nil || dir2 == dir {
		t.Errorf("second toolchain: %s, %v (first %s)", dir2, err, dir)
	}
}

// otherToolchain is a tested release newer than the installed Go, which the go
// command downloads into the module cache for a go.mod that names it.
func otherToolchain(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("downloads a toolchain and builds the standard library with the overlay")
	}
	// The installed toolchain, not the one GOTOOLCHAIN names (the CI's toolchain matrix
	// runs these tests with GOTOOLCHAIN=go1.26.11): a go.mod's toolchain line only ever
	// switches to a newer one than that.
	t.Setenv("GOTOOLCHAIN", "auto")
	installed, err := FindToolchain(context.Background(), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if installed.GOVERSION == "go1.26.11" {
		return "go1.27.4"
	}
	return "go1.26.11"
}

// TestPrepareFollowsGoMod: two modules in one workspace, one whose go.mod asks
// for a newer toolchain, each get the overlay of their own toolchain.
func TestPrepareFollowsGoMod(t *testing.T) {
	other := otherToolchain(t)
	t.Setenv("GOTOOLCHAIN", "auto")
	ws := t.TempDir()
	for name, gomod := range map[string]string{
		"old": "module old\n\ngo 1.25\n",
		"new": "module new\n\ngo 1.26.0\n\ntoolchain " + other + "\n",
	} {
		if err := os.MkdirAll(filepath.Join(ws, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name, "go.mod"), []byte(gomod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	installed, err := FindToolchain(context.Background(), filepath.Join(ws, "old"))
	if err != nil {
		t.Fatal(err)
	}
	newer, err := FindToolchain(context.Background(), filepath.Join(ws, "new"))
	if err != nil {
		t.Fatal(err)
	}
	if newer.GOVERSION != other || !newer.underModCache() {
		t.Fatalf("module asking for %s: toolchain %s at %s, want %s from the module cache", other, newer.GOVERSION, newer.GOROOT, other)
	}
	cache := t.TempDir()
	ovOld, err := prepareFor(cache, installed)
	if err != nil {
		t.Fatal(err)
	}
	ovNew, err := prepareFor(cache, newer)
	if err != nil {
		t.Fatal(err)
	}
	if ovOld.Path == ovNew.Path || ovNew.GoVersion != other || ovOld.GoVersion != installed.GOVERSION {
		t.Errorf("overlays %s (%s) and %s (%s), want one per toolchain", ovOld.Path, ovOld.GoVersion, ovNew.Path, ovNew.GoVersion)
	}
	if (Toolchain{GOROOT: ovNew.GOROOT, GOMODCACHE: newer.GOMODCACHE}).underModCache() {
		t.Errorf("overlay of %s patches %s, in the module cache", other, ovNew.GOROOT)
	}
	for from := range readOverlay(t, ovNew.Path) {
		if !strings.HasPrefix(from, ovNew.GOROOT+string(filepath.Separator)) {
			t.Errorf("overlay of %s replaces %s, outside its GOROOT %s", other, from, ovNew.GOROOT)
		}
	}
}

// TestRecordWithDownloadedToolchain builds and records testdata/probe with a
// toolchain the go command downloaded (GOTOOLCHAIN names it), whose GOROOT is
// in the module cache.
func TestRecordWithDownloadedToolchain(t *testing.T) {
	other := otherToolchain(t)
	t.Setenv("GOTOOLCHAIN", other)
	bin, err := buildTestdata(t, "probe", filepath.Join(t.TempDir(), "probe.test"))
	if err != nil {
		failBuild(t, err)
	}
	r := record(t, bin, "TestProbe", nil)
	if r.err != nil {
		t.Fatalf("probe failed: %v\n%s", r.err, r.output)
	}
	if got := r.tr.Meta["goversion"]; got != other {
		t.Errorf("trace recorded by %s, want %s", got, other)
	}
	pos := markersIn(t, "probe")
	for _, want := range []struct {
		kind trace.Kind
		mark string
	}{{trace.KindChanMake, "probe.make"}, {trace.KindChanSend, "probe.send"}, {trace.KindChanRecv, "probe.recv"}} {
		n := 0
		for _, e := range r.tr.Events {
			if e.Kind == want.kind && r.tr.Position(e.Pos).String() == pos[want.mark] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d %s events at @%s, want 1\n%s", n, want.kind, want.mark, dump(r.tr))
		}
	}
}
