package replay

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two replays of one finding started in the same millisecond get directories of their own.
func TestNewOutDirUnique(t *testing.T) {
	base := t.TempDir()
	now := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	a, err := NewOutDir(base, "GW0123456789", now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewOutDir(base, "GW0123456789", now)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) != filepath.Join(base, "replays") || !strings.HasPrefix(filepath.Base(b), "GW0123456789-20261127T150000.000-") {
		t.Errorf("directories %s and %s; want two under %s/replays named by the ID and time", a, b, base)
	}
}
