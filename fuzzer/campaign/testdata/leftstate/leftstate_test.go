// Package leftstate stands in for tests that cannot be rerun against external state
// (leftstate.go): TestLock creates a lock file with O_EXCL and never removes it,
// Example_counter increments a counter file and prints it (as an Example does with a redis
// INCR); both pass their first run and fail every later one. TestFine passes every run.
// Run them with TMPDIR set to a fresh directory. TestMain writes a trace (format v1, no
// events) to $GOWEAVE_TRACE once the test ends.
package leftstate

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLock(t *testing.T) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "leftstate.lock"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	f.Close()
}

func Example_counter() {
	path := filepath.Join(os.TempDir(), "leftstate.counter")
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	n++
	os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644)
	fmt.Println(n)
	// Output: 1
}

func TestFine(t *testing.T) {}

func TestMain(m *testing.M) {
	code := m.Run()
	if path := os.Getenv("GOWEAVE_TRACE"); path != "" {
		os.WriteFile(path, encode("exit=exit\n"), 0o644)
	}
	os.Exit(code)
}

// encode writes a trace with the given META lines and no events.
func encode(meta string) []byte {
	b := []byte("GWTRACE\x00")
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 64)
	section := func(tag uint32, payload []byte) {
		b = binary.LittleEndian.AppendUint32(b, tag)
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
		b = append(b, payload...)
	}
	section(1, []byte(meta))
	section(2, binary.LittleEndian.AppendUint32(nil, 0)) // the empty string
	section(4, nil)
	section(0xFFFF, make([]byte, 16))
	return b
}
