package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeMarked writes src as dir/name and returns its path and the line of each
// "// mark:NAME" comment in it, for tests that read source at recorded positions.
func writeMarked(t *testing.T, dir, name, src string) (string, map[string]int) {
	t.Helper()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for i, l := range strings.Split(src, "\n") {
		if _, mark, ok := strings.Cut(l, "// mark:"); ok {
			lines[mark] = i + 1
		}
	}
	return file, lines
}
