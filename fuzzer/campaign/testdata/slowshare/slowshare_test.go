// Package slowshare stands in for a big suite's slow tests in the tests of the campaign's
// time budget (budget.go): tests longer than their share of the budget, one longer than
// any time limit. TestMain writes a trace (format v1, no events) to $GOWEAVE_TRACE with a
// META key "finding" (the test's bug, for the tests' stub analysis) once the test ends.
package slowshare

import (
	"encoding/binary"
	"os"
	"testing"
	"time"
)

var finding string

// slow takes 1.5 s (sleeps: no CPU, whatever the load) and then has its bug.
func slow(bug string) {
	time.Sleep(1500 * time.Millisecond)
	finding = bug
}

func TestSlowA(t *testing.T) { slow("slow-a") }
func TestSlowB(t *testing.T) { slow("slow-b") }
func TestSlowC(t *testing.T) { slow("slow-c") }
func TestSlowD(t *testing.T) { slow("slow-d") }
func TestSlowE(t *testing.T) { slow("slow-e") }

func TestFast(t *testing.T) {}

// TestForever never ends: only its time limit stops it (it keeps no progress record, so
// it is stuck, not slow).
func TestForever(t *testing.T) { time.Sleep(time.Hour) }

func TestMain(m *testing.M) {
	code := m.Run()
	if path := os.Getenv("GOWEAVE_TRACE"); path != "" {
		os.WriteFile(path, encode("exit=exit\nfinding="+finding+"\n"), 0o644)
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
