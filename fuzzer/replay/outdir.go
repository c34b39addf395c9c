package replay

import (
	"os"
	"path/filepath"
	"time"
)

// NewOutDir makes a new directory for one replay of finding id under base/replays (the
// campaign directory or the output directory the finding came from). Its name starts with
// the ID and the time, for the eye; the rest is unique: replays of one ID started at once
// (copies of a module share IDs and may share a campaign directory) never share binaries,
// schedules or traces.
func NewOutDir(base, id string, now time.Time) (string, error) {
	dir := filepath.Join(base, "replays")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, id+"-"+now.UTC().Format("20060102T150405.000")+"-*")
}
