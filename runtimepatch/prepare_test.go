package runtimepatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func installedToolchain(t *testing.T) Toolchain {
	t.Helper()
	tc, err := FindToolchain(context.Background(), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.Supported(); err != nil {
		t.Skip(err)
	}
	return tc
}

func TestPatchKeepsLineCount(t *testing.T) {
	tc := installedToolchain(t)
	rel, err := tc.release()
	if err != nil {
		t.Fatal(err)
	}
	files, byFile := sitesByFile(rel.Sites)
	for _, file := range files {
		src, err := os.ReadFile(filepath.Join(tc.GOROOT, "src", file))
		if err != nil {
			t.Fatal(err)
		}
		out, err := patchFile(tc.GOVERSION, file, src, byFile[file])
		if err != nil {
			t.Fatal(err)
		}
		if got, want := bytes.Count(out, []byte("\n")), bytes.Count(src, []byte("\n")); got != want {
			t.Errorf("%s: %d lines after patching, %d before", file, got, want)
		}
		outLines := strings.Split(string(out), "\n")
		srcLines := strings.Split(string(src), "\n")
		var lineSites []site
		renames := false
		for _, s := range byFile[file] {
			if s.Decl == renameDecl {
				renames = true
				continue
			}
			lineSites = append(lineSites, s)
			if !slices.Contains(outLines, s.New) {
				t.Errorf("%s, %s: %q not replaced", file, s.Decl, s.Old)
			}
		}
		changed, renamed := 0, 0
		for i := range srcLines {
			switch {
			case outLines[i] == srcLines[i] || slices.ContainsFunc(lineSites, func(s site) bool { return s.New == outLines[i] }):
			case renames && strings.ReplaceAll(outLines[i], "goweave", "") == srcLines[i]:
				renamed++
				continue
			default:
				t.Errorf("%s:%d: %q changed to %q by no site", file, i+1, srcLines[i], outLines[i])
			}
			if outLines[i] != srcLines[i] {
				changed++
			}
		}
		if changed != len(lineSites) {
			t.Errorf("%s: %d lines changed, want one per site (%d)", file, changed, len(lineSites))
		}
		if renames && renamed == 0 {
			t.Errorf("%s: no symbol renamed", file)
		}
	}
}

// siteSrc is a small source file for the site search tests.
const siteSrc = `package p

import "fmt"

type T struct {
	x int
}

func f() {
	x := 1
	// first
	if x > 0 {
		fmt.Println(x)
	}

	// second
	if x > 0 {
		fmt.Println(x)
	}
}

func (t *T) m() {
	x := 1
	fmt.Println(x)
}
`

func TestPatchFileFindsSitesByText(t *testing.T) {
	sites := []site{
		{"p.go", "f", "", "\tx := 1", "\tx := 1; _ = 0"},
		{"p.go", "f", "\t// second", "\t\tfmt.Println(x)", "\t\tfmt.Println(x, 2)"},
		{"p.go", "(*T).m", "", "\tx := 1", "\tx := 2"},
		{"p.go", "type T", "", "\tx int", "\tx int; y int"},
		{"p.go", "import", "", "import \"fmt\"", "import \"fmt\"; import \"os\""},
	}
	out, err := patchFile("go1.26.8", "p.go", []byte(siteSrc), sites)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"func f() {\n\tx := 1\n", "func f() {\n\tx := 1; _ = 0\n",
		"// second\n\tif x > 0 {\n\t\tfmt.Println(x)\n", "// second\n\tif x > 0 {\n\t\tfmt.Println(x, 2)\n",
		"m() {\n\tx := 1\n", "m() {\n\tx := 2\n",
		"\tx int\n", "\tx int; y int\n",
		"import \"fmt\"\n", "import \"fmt\"; import \"os\"\n",
	).Replace(siteSrc)
	if string(out) != want {
		t.Errorf("patched:\n%s\nwant:\n%s", out, want)
	}
}

func TestPatchFileRejectsMissingOrAmbiguousSites(t *testing.T) {
	for _, tt := range []struct {
		site    site
		problem string
	}{
		{site{"p.go", "f", "", "\t\tfmt.Println(x)", "x"}, "found 2 times in f"},
		{site{"p.go", "f", "", "\tx := 2", "x"}, "not found in f"},
		{site{"p.go", "g", "", "\tx := 1", "x"}, "no declaration g"},
		{site{"p.go", "f", "\t// third", "\t\tfmt.Println(x)", "x"}, "not found in f"},
		{site{"p.go", "f", "\tif x > 0 {", "\t\tfmt.Println(x)", "x"}, "found 2 times in f"},
		// Old is looked for only up to the blank line after After.
		{site{"p.go", "f", "\t// first", "\t// second", "x"}, "not found in the lines of f from"},
	} {
		_, err := patchFile("go1.27.4", "p.go", []byte(siteSrc), []site{tt.site})
		var se *SiteError
		if !errors.As(err, &se) {
			t.Errorf("%+v: err = %v, want a SiteError", tt.site, err)
			continue
		}
		for _, want := range []string{"go1.27.4", "p.go", tt.site.Decl, tt.problem} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%+v: error %q does not say %q", tt.site, err, want)
			}
		}
	}
	two := []site{{"p.go", "f", "", "\tx := 1", "a"}, {"p.go", "f", "", "\tx := 1", "b"}}
	if _, err := patchFile("go1.26.8", "p.go", []byte(siteSrc), two); err == nil {
		t.Errorf("two sites on one line were accepted")
	}
	if _, err := patchFile("go1.26.8", "p.go", []byte(siteSrc), []site{{"p.go", "f", "", "\tx := 1", "a\nb"}}); err == nil {
		t.Errorf("a replacement spanning two lines was accepted")
	}
}

func TestUnsupportedToolchains(t *testing.T) {
	for _, tt := range []struct {
		tc     Toolchain
		reason string
	}{
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.24.13", GOOS: "linux", GOARCH: "amd64"}, "this Go release is not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.28.1", GOOS: "linux", GOARCH: "amd64"}, "this Go release is not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.27rc1", GOOS: "linux", GOARCH: "amd64"}, "pre-releases are not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "devel go1.28-abcdef Tue Jan 1 00:00:00 2030 +0000", GOOS: "linux", GOARCH: "amd64"}, "development toolchains are not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.26.8", GOOS: "linux", GOARCH: "386"}, "GOARCH 386 is not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.26.8", GOOS: "windows", GOARCH: "amd64"}, "GOOS windows is not supported"},
		{Toolchain{GOROOT: "/opt/go", GOVERSION: "go1.26.8", GOOS: "freebsd", GOARCH: "amd64"}, "GOOS freebsd is not supported"},
	} {
		_, err := prepareFor(t.TempDir(), tt.tc)
		var ue *UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("%s: err = %v, want an UnsupportedError", tt.tc.GOVERSION, err)
			continue
		}
		// One message: what was found, what is supported, what to do.
		for _, want := range []string{tt.reason, tt.tc.GOVERSION, "/opt/go", "go1.25.x, go1.26.x and go1.27.x", "GOTOOLCHAIN=" + Recommended(), "toolchain " + Recommended()} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", tt.tc.GOVERSION, err, want)
			}
		}
	}
	for _, v := range []string{"go1.25.0", "go1.25.14", "go1.26.0", "go1.26.8", "go1.27.0", "go1.27.4", "go1.27.99", "go1.26.8 X:nodwarf5"} {
		if err := (Toolchain{GOVERSION: v, GOOS: "linux", GOARCH: "arm64"}).Supported(); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	// macOS: the overlay cross-builds for both (.ci/cross.sh).
	for _, arch := range []string{"arm64", "amd64"} {
		if err := (Toolchain{GOVERSION: "go1.26.8", GOOS: "darwin", GOARCH: arch}).Supported(); err != nil {
			t.Errorf("darwin/%s: %v", arch, err)
		}
	}
}

// TestSitesInEveryRelease finds every patch site in the sources of each
// tested release found in the module cache (CI downloads them all first:
// .ci/toolchains.sh).
func TestSitesInEveryRelease(t *testing.T) {
	tc := installedToolchain(t)
	found := 0
	for _, v := range TestedVersions() {
		goroot := filepath.Join(tc.GOMODCACHE, "golang.org", fmt.Sprintf("toolchain@v0.0.1-%s.%s-%s", v, tc.GOOS, tc.GOARCH))
		if v == tc.GOVERSION {
			goroot = tc.GOROOT
		}
		if _, err := os.Stat(filepath.Join(goroot, "src")); err != nil {
			t.Logf("%s: not in the module cache, skipped (GOTOOLCHAIN=%s go version downloads it)", v, v)
			continue
		}
		found++
		rel, ok := releaseOf(v)
		if !ok {
			t.Fatalf("tested version %s is not supported", v)
		}
		files, byFile := sitesByFile(rel.Sites)
		for _, file := range files {
			src, err := os.ReadFile(filepath.Join(goroot, "src", file))
			if err != nil {
				t.Errorf("%s: %v", v, err)
				continue
			}
			out, err := patchFile(v, file, src, byFile[file])
			if err != nil {
				t.Error(err)
				continue
			}
			if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
				t.Errorf("%s: %s: line count changed", v, file)
			}
		}
	}
	t.Logf("%d of %d tested releases checked", found, len(TestedVersions()))
}

func TestPrepareDetectsDrift(t *testing.T) {
	tc := installedToolchain(t)
	// A copy of GOROOT/src's patched files, with one patch site of
	// runtime/chan.go changed.
	rel, err := tc.release()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := sitesByFile(rel.Sites)
	fake := t.TempDir()
	for _, file := range files {
		src, err := os.ReadFile(filepath.Join(tc.GOROOT, "src", file))
		if err != nil {
			t.Fatal(err)
		}
		if file == "runtime/chan.go" {
			src = bytes.Replace(src, []byte("\tlock mutex\n"), []byte("\tlock  mutex\n"), 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(fake, "src", file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fake, "src", file), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc.GOROOT = fake
	_, err = prepareIn(t.TempDir(), tc)
	var se *SiteError
	if !errors.As(err, &se) || se.File != "runtime/chan.go" || se.Decl != "type hchan" || se.GoVersion != tc.GOVERSION {
		t.Fatalf("err = %v, want a missing site in runtime/chan.go, type hchan, for %s", err, tc.GOVERSION)
	}
}

func TestPrepareOverlayContents(t *testing.T) {
	tc := installedToolchain(t)
	ov, err := prepareIn(t.TempDir(), tc)
	if err != nil {
		t.Fatal(err)
	}
	if ov.GOROOT != tc.GOROOT || ov.GoVersion != tc.GOVERSION {
		t.Errorf("overlay for %s %s, want %s %s", ov.GOROOT, ov.GoVersion, tc.GOROOT, tc.GOVERSION)
	}
	replace := readOverlay(t, ov.Path)
	rel, err := tc.release()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := sitesByFile(rel.Sites)
	added, err := addedFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(replace) != len(files)+len(added) {
		t.Errorf("%d replacements, want %d patched + %d added", len(replace), len(files), len(added))
	}
	dirs := map[string]string{} // directory of each patched copy -> its std package
	for from, to := range replace {
		if _, err := os.Stat(to); err != nil {
			t.Errorf("%s -> missing %s", from, to)
		}
		rel, err := filepath.Rel(filepath.Join(tc.GOROOT, "src"), filepath.Dir(from))
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("replacement %s is outside GOROOT/src", from)
		}
		if pkg, ok := dirs[filepath.Dir(to)]; ok && pkg != rel {
			t.Errorf("%s holds files of %s and %s", filepath.Dir(to), pkg, rel)
		}
		dirs[filepath.Dir(to)] = rel
	}
}

func readOverlay(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatal(err)
	}
	return ov.Replace
}

func TestPrepareReusesOverlay(t *testing.T) {
	tc := installedToolchain(t)
	root := t.TempDir()
	first, err := prepareIn(root, tc)
	if err != nil {
		t.Fatal(err)
	}
	// Mark the generated overlay: a reused overlay keeps the mark.
	if err := os.WriteFile(filepath.Join(filepath.Dir(first.Path), "mark"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	second, err := prepareIn(root, tc)
	if err != nil {
		t.Fatal(err)
	}
	if second.Path != first.Path {
		t.Errorf("second Prepare: %s, first %s", second.Path, first.Path)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(first.Path), "mark")); err != nil {
		t.Errorf("overlay regenerated: %v", err)
	}
}

func TestPrepareConcurrentGoroutines(t *testing.T) {
	tc := installedToolchain(t)
	root := t.TempDir()
	var wg sync.WaitGroup
	paths := make([]string, 8)
	errs := make([]error, 8)
	for i := range paths {
		wg.Go(func() {
			ov, err := prepareIn(root, tc)
			if err == nil {
				paths[i] = ov.Path
				readOverlay(t, ov.Path)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil || paths[i] != paths[0] {
			t.Errorf("Prepare %d: %s, %v (first: %s)", i, paths[i], errs[i], paths[0])
		}
	}
	checkOneCompleteOverlay(t, root)
}

// TestPrepareConcurrentProcesses runs this test binary as two helper
// processes that generate the overlay into the same directory at once.
func TestPrepareConcurrentProcesses(t *testing.T) {
	if root := os.Getenv("RUNTIMEPATCH_PREPARE_ROOT"); root != "" {
		ov, err := prepareIn(root, installedToolchain(t))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("OVERLAY", ov.Path)
		return
	}
	installedToolchain(t)
	root := t.TempDir()
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPrepareConcurrentProcesses$", "-test.v")
			cmd.Env = append(os.Environ(), "RUNTIMEPATCH_PREPARE_ROOT="+root)
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	var paths []string
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("helper %d: %v\n%s", i, errs[i], outs[i])
		}
		for _, line := range strings.Split(string(outs[i]), "\n") {
			if p, ok := strings.CutPrefix(line, "OVERLAY "); ok {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) != 2 || paths[0] != paths[1] {
		t.Errorf("helpers returned %q, want the same overlay twice", paths)
	}
	checkOneCompleteOverlay(t, root)
}

// checkOneCompleteOverlay checks that root holds exactly one overlay, with
// every file it names, and no leftover temporary directory.
func checkOneCompleteOverlay(t *testing.T, root string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("%s holds %q, want one overlay directory", root, names)
	}
	for from, to := range readOverlay(t, filepath.Join(root, entries[0].Name(), "overlay.json")) {
		if _, err := os.Stat(to); err != nil {
			t.Errorf("%s -> %s: %v", from, to, err)
		}
	}
}

// TestPrepareRegeneratesDamagedOverlay damages a generated overlay in each way
// a cache can be damaged (a file removed, a file changed, the manifest
// removed): the next Prepare puts back the same complete overlay.
func TestPrepareRegeneratesDamagedOverlay(t *testing.T) {
	tc := installedToolchain(t)
	root := t.TempDir()
	ov, err := prepareIn(root, tc)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(ov.Path)
	want := overlayFiles(t, dir)
	for _, damage := range []struct {
		name string
		do   func(dir string) error
	}{
		{"patched file removed", func(dir string) error { return os.Remove(filepath.Join(dir, "runtime", "chan.go")) }},
		{"added file removed", func(dir string) error { return os.Remove(filepath.Join(dir, "sync", "zz_goweave.go")) }},
		{"overlay.json removed", func(dir string) error { return os.Remove(filepath.Join(dir, "overlay.json")) }},
		{"patched file truncated", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "runtime", "proc.go"), []byte("package runtime\n"), 0o644)
		}},
		{"manifest removed", func(dir string) error { return os.Remove(filepath.Join(dir, manifestName)) }},
	} {
		if err := damage.do(dir); err != nil {
			t.Fatal(err)
		}
		if verifyOverlay(dir) == nil {
			t.Errorf("%s: the damaged overlay verifies", damage.name)
		}
		again, err := prepareIn(root, tc)
		if err != nil {
			t.Fatalf("%s: %v", damage.name, err)
		}
		if again.Path != ov.Path {
			t.Errorf("%s: overlay moved to %s", damage.name, again.Path)
		}
		got := overlayFiles(t, dir)
		if len(got) != len(want) {
			t.Errorf("%s: %d files after regeneration, want %d", damage.name, len(got), len(want))
		}
		for name, data := range want {
			if got[name] != data {
				t.Errorf("%s: %s differs after regeneration", damage.name, name)
			}
		}
		checkOneCompleteOverlay(t, root)
	}
}

// overlayFiles reads every file of the overlay in dir, by relative path.
func overlayFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
