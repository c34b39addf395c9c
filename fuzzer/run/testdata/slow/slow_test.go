// Package slow stands in for slow and stuck tests in the time limit's tests, built with the
// stock runtime: where the goweave runtime would keep its progress record
// (GOWEAVE_PROGRESS), these tests write one themselves.
package slow

import (
	"encoding/binary"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// seconds is how long the slow tests run: GOWEAVE_TEST_SECONDS, default 3.
func seconds() time.Duration {
	if n, err := strconv.ParseFloat(os.Getenv("GOWEAVE_TEST_SECONDS"), 64); err == nil {
		return time.Duration(n * float64(time.Second))
	}
	return 3 * time.Second
}

var sink uint64

// TestWorking computes: it uses the CPU until it is done.
func TestWorking(t *testing.T) {
	end := time.Now().Add(seconds())
	for time.Now().Before(end) {
		for i := range 100_000 {
			sink += uint64(i) * sink
		}
	}
}

// TestRecording waits most of the time but records operations: its progress record's event
// count grows.
func TestRecording(t *testing.T) {
	rec := record(t)
	end := time.Now().Add(seconds())
	for events := uint64(1); time.Now().Before(end); events++ {
		rec(events, 0)
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStuck waits for good, using no CPU and recording nothing.
func TestStuck(t *testing.T) {
	rec := record(t)
	rec(7, 0)
	time.Sleep(time.Hour)
}

// record opens the progress file and returns a function that writes the record.
func record(t *testing.T) func(events, flags uint64) {
	path := os.Getenv("GOWEAVE_PROGRESS")
	if path == "" {
		return func(uint64, uint64) {}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func(events, flags uint64) {
		b := make([]byte, 64)
		copy(b, "GWPROG01")
		binary.LittleEndian.PutUint64(b[8:], events)
		binary.LittleEndian.PutUint64(b[16:], events)
		binary.LittleEndian.PutUint64(b[24:], flags)
		f.WriteAt(b, 0)
	}
}

// TestFlushing stands still until SIGQUIT, then writes its trace (GOWEAVE_TRACE, 10 KiB)
// slowly, as the recorder flushing a full buffer on a loaded machine does, and exits.
func TestFlushing(t *testing.T) {
	rec := record(t)
	rec(7, 0)
	quit := make(chan os.Signal, 1)
	signal.Notify(quit, syscall.SIGQUIT)
	<-quit
	f, err := os.Create(os.Getenv("GOWEAVE_TRACE"))
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		f.Write(make([]byte, 1024))
		time.Sleep(400 * time.Millisecond) // 4 s in all, twice the test's grace; each pause a fifth of it
	}
	f.Close()
	os.Exit(0)
}
