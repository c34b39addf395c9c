package trace

import (
	"io"
	"os"
)

// seekHole is lseek's SEEK_HOLE: the offset of the next hole at or after the given offset
// (the file's size when there is none, or on file systems that do not track holes).
const seekHole = 4

// firstHole returns the offset of the first hole in f after its current position, if
// there is one before size. It leaves the position as it was.
func firstHole(f *os.File, size int64) (int64, bool) {
	cur, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	at, err := f.Seek(cur, seekHole)
	if _, err := f.Seek(cur, io.SeekStart); err != nil {
		return 0, false
	}
	return at, err == nil && at < size
}
