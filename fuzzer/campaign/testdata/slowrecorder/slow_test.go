// Package slowrecorder stands in for the goweave runtime in the tests of the time limit:
// TestMain writes a trace (format v1, no events) to $GOWEAVE_TRACE when a test ends, and the
// tests keep the progress record the runtime would keep in $GOWEAVE_PROGRESS.
package slowrecorder

import (
	"encoding/binary"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestSlow waits most of the time but records an operation every 20 ms, for 5 s.
func TestSlow(t *testing.T) {
	rec := record(t)
	end := time.Now().Add(5 * time.Second)
	for events := uint64(1); time.Now().Before(end); events++ {
		rec(events)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStuck records one operation and then waits for good.
func TestStuck(t *testing.T) {
	record(t)(1)
	time.Sleep(time.Hour)
}

// record opens the progress file and returns a function that writes the record with the
// given event count (no flags: no timer, nothing runnable, as the runtime would see it).
func record(t *testing.T) func(events uint64) {
	f, err := os.OpenFile(os.Getenv("GOWEAVE_PROGRESS"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func(events uint64) {
		b := make([]byte, 64)
		copy(b, "GWPROG01")
		binary.LittleEndian.PutUint64(b[8:], events)
		binary.LittleEndian.PutUint64(b[16:], events)
		f.WriteAt(b, 0)
	}
}

func TestMain(m *testing.M) {
	// Like the goweave runtime, answer the time limit's signal by writing the trace and
	// ending with SIGQUIT (its goroutine dump).
	if n, err := strconv.Atoi(os.Getenv("GOWEAVE_TIMELIMIT")); err == nil {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.Signal(n))
		go func() {
			<-c
			os.WriteFile(os.Getenv("GOWEAVE_TRACE"), encode("exit=signal\ntimelimit=1\n"), 0o644)
			syscall.Kill(os.Getpid(), syscall.SIGQUIT)
		}()
	}
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
