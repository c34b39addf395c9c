//go:build linux || darwin

package run

import (
	"bytes"
	"encoding/binary"
)

// procargsEnv returns the environment entries (NUL-separated) of a macOS kern.procargs2
// record: argc (a 32-bit integer, little-endian on amd64 and arm64), the executable's path
// and its NUL padding, argc arguments, then the environment up to an empty entry. An
// argument that looks like KEY=value is not taken for the environment. Portable, so that
// Linux tests check it on records built from real processes.
func procargsEnv(buf []byte) []byte {
	if len(buf) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(buf))
	rest := buf[4:]
	i := bytes.IndexByte(rest, 0) // the executable's path
	if i < 0 {
		return nil
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil
		}
		rest = rest[i+1:]
	}
	if end := bytes.Index(rest, []byte{0, 0}); end >= 0 {
		rest = rest[:end+1]
	}
	if len(rest) > 0 && rest[0] == 0 {
		return nil // no environment
	}
	return rest
}
