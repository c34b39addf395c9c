package runtimepatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// EnvProgress names a file a recording process keeps its progress in, for its
// supervisor to tell a slow run from a stuck one at the time limit without
// stopping it. The process maps the file's first ProgressSize bytes shared
// and updates them from its stuck-check thread, a few times a second at most
// and only when they change; nothing is written on a goroutine's path.
const EnvProgress = "GOWEAVE_PROGRESS"

// ProgressSize is the size of the progress record. Layout, little-endian:
//
//	[0:8)   magic "GWPROG01"
//	[8:16)  events: the stamps issued so far (every recorded operation takes one or two)
//	[16:24) ticks: how many times the check thread looked (it is alive while this grows)
//	[24:32) flags: ProgressTimer, ProgressRunnable
//	[32:64) zero, reserved
const ProgressSize = 64

const progressMagic = "GWPROG01"

// Progress flags, as the check thread saw the program at its last tick.
const (
	// ProgressTimer: a timer or a sleep of the program could still wake one of its goroutines.
	ProgressTimer = 1 << iota
	// ProgressRunnable: a goroutine of the program was running, runnable or in a system call.
	ProgressRunnable
)

// Progress is one reading of a progress file.
type Progress struct {
	Events uint64
	Ticks  uint64
	Flags  uint64
}

// ErrNoProgress is returned by ReadProgress while the process has not yet
// written its record (it has not started, or is not a recording process).
var ErrNoProgress = errors.New("no progress record yet")

// ReadProgress reads the progress file at path.
func ReadProgress(path string) (Progress, error) {
	f, err := os.Open(path)
	if err != nil {
		return Progress{}, err
	}
	defer f.Close()
	var b [ProgressSize]byte
	n, _ := f.ReadAt(b[:], 0)
	if n < 32 || string(b[:8]) == "\x00\x00\x00\x00\x00\x00\x00\x00" {
		return Progress{}, ErrNoProgress
	}
	if string(b[:8]) != progressMagic {
		return Progress{}, fmt.Errorf("progress file %s: not a goweave progress record", path)
	}
	return Progress{
		Events: binary.LittleEndian.Uint64(b[8:]),
		Ticks:  binary.LittleEndian.Uint64(b[16:]),
		Flags:  binary.LittleEndian.Uint64(b[24:]),
	}, nil
}
