package main

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/goweave/goweave/runtimepatch"
)

func TestGoweaveVersion(t *testing.T) {
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "devel-0123456789ab+dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{nil, "devel"},
	} {
		if got := goweaveVersion(tt.bi); got != tt.want {
			t.Errorf("goweaveVersion(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	version = "v9.9.9"
	defer func() { version = "" }()
	if got := goweaveVersion(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); got != "v9.9.9" {
		t.Errorf("with -X main.version: %q", got)
	}
}

func TestWriteVersion(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	for _, tt := range []struct {
		tc   runtimepatch.Toolchain
		err  error
		want []string
	}{
		{runtimepatch.Toolchain{GOROOT: "/mc/golang.org/toolchain@v0.0.1-go1.27.4.linux-amd64", GOVERSION: "go1.27.4", GOOS: "linux", GOARCH: "amd64", GOMODCACHE: "/mc"}, nil,
			[]string{"goweave v1.2.3", "Go toolchain for /m: go1.27.4 linux/amd64", "downloaded by the go command", "supported: yes"}},
		{runtimepatch.Toolchain{GOROOT: "/usr/local/go", GOVERSION: "go1.24.13", GOOS: "linux", GOARCH: "amd64"}, nil,
			[]string{"go1.24.13 linux/amd64 (/usr/local/go)", "supported: no", "GOTOOLCHAIN=" + runtimepatch.Recommended()}},
		{runtimepatch.Toolchain{}, errors.New("go: not found"),
			[]string{"goweave v1.2.3", "Go toolchain for /m: unknown", "go: not found"}},
	} {
		var b strings.Builder
		writeVersion(&b, bi, "/m", func() (runtimepatch.Toolchain, error) { return tt.tc, tt.err })
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("output %q does not say %q", b.String(), w)
			}
		}
	}
}
