package runtimepatch

import (
	"fmt"
	"regexp"
	"strings"
)

// The Go releases goweave patches. A release line is supported as a whole
// (any patch release): patch sites are found by their text (sites.go), and a
// patch release whose sources no longer match fails with a SiteError naming
// the site, never with a silently unpatched runtime. CI runs the runtime's
// conformance tests and the corpus on each line's .0 and newest patch
// release (.ci/toolchains.sh: Tested).

// release is one supported Go release line.
type release struct {
	Minor string // "go1.27"
	Sites []site
	// LeakGC: the runtime has the GC's goroutine leak detection (Go 1.26
	// and later), which the exit flush runs to prove leaks (META leakgc).
	// Without it leaks are judged from the trace alone.
	LeakGC bool
	// Tested are the patch releases CI runs: the .0 and the newest one
	// known when this table was last updated.
	Tested []string
}

var releases = []release{
	{Minor: "go1.25", Sites: withSyncMap("sync/hashtriemap.go"), LeakGC: false, Tested: []string{"go1.25.0", "go1.25.14"}},
	{Minor: "go1.26", Sites: withSyncMap("sync/map.go"), LeakGC: true, Tested: []string{"go1.26.0", "go1.26.11"}},
	{Minor: "go1.27", Sites: withSyncMap("sync/map.go"), LeakGC: true, Tested: []string{"go1.27.0", "go1.27.4"}},
}

// SupportedVersions says which toolchains goweave patches.
var SupportedVersions = func() string {
	var minors []string
	for _, r := range releases {
		minors = append(minors, r.Minor+".x")
	}
	return strings.Join(minors[:len(minors)-1], ", ") + " and " + minors[len(minors)-1] + " (any patch release)"
}()

// TestedVersions lists the patch releases CI runs, oldest first.
func TestedVersions() []string {
	var out []string
	for _, r := range releases {
		out = append(out, r.Tested...)
	}
	return out
}

// Recommended is the toolchain to suggest when the one found is not
// supported: the newest tested release.
func Recommended() string {
	t := releases[len(releases)-1].Tested
	return t[len(t)-1]
}

// releaseVersion matches a release toolchain's GOVERSION ("go1.27.4"),
// optionally followed by build details ("go1.26.8 X:nodwarf5").
var releaseVersion = regexp.MustCompile(`^(go1\.\d+)\.\d+$`)

// releaseOf returns the supported release line of a GOVERSION; false for an
// unsupported release, a release candidate or a development toolchain.
func releaseOf(goversion string) (release, bool) {
	f := strings.Fields(goversion)
	if len(f) == 0 {
		return release{}, false
	}
	m := releaseVersion.FindStringSubmatch(f[0])
	if m == nil {
		return release{}, false
	}
	for _, r := range releases {
		if r.Minor == m[1] {
			return r, true
		}
	}
	return release{}, false
}

// UnsupportedError says that goweave cannot patch a toolchain, and what to do.
type UnsupportedError struct {
	Toolchain Toolchain
	Reason    string // e.g. "this Go release is not supported"
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("goweave cannot patch the Go toolchain of this module, %s %s/%s (GOROOT %s): %s. goweave supports %s on linux/amd64, linux/arm64, darwin/amd64 and darwin/arm64. "+
		"Use a supported toolchain: run goweave with GOTOOLCHAIN=%s (the go command downloads it), or put `toolchain %s` in go.mod",
		e.Toolchain.GOVERSION, e.Toolchain.GOOS, e.Toolchain.GOARCH, e.Toolchain.GOROOT, e.Reason, SupportedVersions, Recommended(), Recommended())
}

// Supported returns nil if goweave can patch the toolchain, else an
// *UnsupportedError saying what was found, what is supported and what to do.
func (tc Toolchain) Supported() error {
	_, err := tc.release()
	return err
}

// release returns the toolchain's supported release line, or an
// *UnsupportedError.
func (tc Toolchain) release() (release, error) {
	r, ok := releaseOf(tc.GOVERSION)
	if !ok {
		reason := "this Go release is not supported"
		switch {
		case strings.HasPrefix(tc.GOVERSION, "devel"):
			reason = "development toolchains are not supported"
		case strings.Contains(tc.GOVERSION, "rc") || strings.Contains(tc.GOVERSION, "beta"):
			reason = "pre-releases are not supported"
		}
		return release{}, &UnsupportedError{Toolchain: tc, Reason: reason}
	}
	if tc.GOOS != "linux" && tc.GOOS != "darwin" {
		return release{}, &UnsupportedError{Toolchain: tc, Reason: "GOOS " + tc.GOOS + " is not supported"}
	}
	if tc.GOARCH != "amd64" && tc.GOARCH != "arm64" {
		return release{}, &UnsupportedError{Toolchain: tc, Reason: "GOARCH " + tc.GOARCH + " is not supported"}
	}
	return r, nil
}
