//go:build linux || darwin

package run

import "testing"

// A process may carry several markers (a goweave run under another goweave's run, started
// with the outer marker in its environment): the sweep matches any of them.
func TestMarkedByAnyMarker(t *testing.T) {
	env := []byte("A=1\x00" + envRun + "=1-1\x00B=2\x00" + envRun + "=2-2\x00")
	for _, tt := range []struct {
		value string
		want  bool
	}{{"1-1", true}, {"2-2", true}, {"3-3", false}, {"", false}} {
		if got := markedBy(env, func(v string) bool { return v == tt.value }); got != tt.want {
			t.Errorf("marker %q: %v, want %v", tt.value, got, tt.want)
		}
	}
	if markedBy([]byte("X"+envRun+"=1-1\x00"), func(string) bool { return true }) {
		t.Error("a variable whose name ends in " + envRun + " was taken for the marker")
	}
}
