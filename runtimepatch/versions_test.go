package runtimepatch

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCIToolchains keeps the CI toolchain matrix equal to TestedVersions.
func TestCIToolchains(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".ci", "toolchains.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^tested="([^"]*)"$`).FindSubmatch(data)
	if m == nil {
		t.Fatal(`.ci/toolchains.sh has no tested="..." line`)
	}
	if got := strings.Fields(string(m[1])); !slices.Equal(got, TestedVersions()) {
		t.Errorf(".ci/toolchains.sh tests %q, runtimepatch.TestedVersions is %q", got, TestedVersions())
	}
	for _, r := range releases {
		if len(r.Tested) != 2 || r.Tested[0] != r.Minor+".0" {
			t.Errorf("%s: tested %q, want its .0 and its newest patch release", r.Minor, r.Tested)
		}
	}
}
