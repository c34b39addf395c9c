// Package fakerecorder stands in for the goweave runtime in the fuzzer's campaign tests:
// its TestMain writes a trace (format v1) to $GOWEAVE_TRACE with a META key "finding" that
// the tests' stub analysis turns into a finding, and a number of events that varies with
// the run, so runs differ in signature.
package fakerecorder

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var finding string

// runIndex is the campaign's run number, read from the trace path (".../run-000003.trace").
func runIndex() int {
	base := filepath.Base(os.Getenv("GOWEAVE_TRACE"))
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(base, "run-"), ".trace"))
	return n
}

func TestAlways(t *testing.T) { finding = "always" }

// TestFromThird finds something from its third run on, and is slow on its third run so
// that, with parallel runs, a later run reports the finding first.
func TestFromThird(t *testing.T) {
	if n := runIndex(); n >= 3 {
		finding = "from-third"
		if n == 3 {
			time.Sleep(300 * time.Millisecond)
		}
	}
}

func TestNothing(t *testing.T) { time.Sleep(20 * time.Millisecond) }

func TestMain(m *testing.M) {
	code := m.Run()
	if path := os.Getenv("GOWEAVE_TRACE"); path != "" {
		meta := map[string]string{"exit": "exit", "finding": finding}
		if d := os.Getenv("FAKERECORDER_DROPPED"); d != "" {
			meta["dropped"] = d // the recorder's buffer filled (a campaign test sets it)
		}
		n := 1 + runIndex()%2
		if e, err := strconv.Atoi(os.Getenv("FAKERECORDER_CHANNELS")); err == nil {
			n = e // a large trace (a campaign test sets it)
		}
		os.WriteFile(path, encode(meta, n), 0o644)
	}
	os.Exit(code)
}

// encode writes a trace with the given META and n buffered channels, each made and sent on once.
func encode(meta map[string]string, n int) []byte {
	b := []byte("GWTRACE\x00")
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 64)
	section := func(tag uint32, payload []byte) {
		b = binary.LittleEndian.AppendUint32(b, tag)
		b = binary.LittleEndian.AppendUint32(b, 0)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
		b = append(b, payload...)
	}
	var text []byte
	for k, v := range meta {
		text = append(text, k+"="+v+"\n"...)
	}
	section(1, text)
	section(2, binary.LittleEndian.AppendUint32(nil, 0)) // the empty string
	var events []byte
	stamp := uint64(0)
	for i := range n {
		// A buffered channel and one send on it: each channel is an object of the
		// run's execution graph, so runs with different n differ in coverage.
		for _, kind := range []byte{3, 4} { // ChanMake, ChanSend
			stamp++
			rec := make([]byte, 64)
			rec[0] = kind
			binary.LittleEndian.PutUint64(rec[8:], 1)
			binary.LittleEndian.PutUint64(rec[16:], uint64(i+1))
			binary.LittleEndian.PutUint64(rec[24:], stamp)
			binary.LittleEndian.PutUint64(rec[32:], stamp)
			if kind == 4 {
				binary.LittleEndian.PutUint64(rec[40:], 1) // seq
				binary.LittleEndian.PutUint64(rec[48:], 1) // buffered after
			}
			binary.LittleEndian.PutUint64(rec[56:], 1) // capacity
			events = append(events, rec...)
		}
	}
	section(4, events)
	end := binary.LittleEndian.AppendUint64(nil, uint64(2*n))
	section(0xFFFF, binary.LittleEndian.AppendUint64(end, 0))
	return b
}
