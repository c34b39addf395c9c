// Package statuses has one test per way a test process can end; the fuzzer's tests run
// them and check the status goweave gives each.
package statuses

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPass(t *testing.T) {
	var mu sync.Mutex
	done := make(chan bool)
	go func() {
		mu.Lock()
		mu.Unlock()
		done <- true
	}()
	<-done
}

func TestFail(t *testing.T) { t.Fatal("failing on purpose") }

func TestSkip(t *testing.T) { t.Skip("skipping on purpose") }

func TestPanic(t *testing.T) { panic("panicking on purpose") }

func TestGoroutinePanic(t *testing.T) {
	ch := make(chan int)
	close(ch)
	done := make(chan bool)
	go func() {
		ch <- 1 // send on closed channel
		done <- true
	}()
	<-done
}

func TestDeadlock(t *testing.T) {
	ch := make(chan int)
	<-ch
}

func TestHang(t *testing.T) { time.Sleep(time.Hour) }

// TestHangWithChild starts a child process that would outlive the test if goweave killed
// only the test process; it writes the child's pid and its own to $STATUSES_CHILD_PID_FILE.
func TestHangWithChild(t *testing.T) {
	child := exec.Command("sleep", "3600")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("STATUSES_CHILD_PID_FILE"); p != "" {
		os.WriteFile(p, []byte(strconv.Itoa(child.Process.Pid)+" "+strconv.Itoa(os.Getpid())), 0o644)
	}
	time.Sleep(time.Hour)
}

// TestFlood writes 64 MiB of output, then passes.
func TestFlood(t *testing.T) {
	line := strings.Repeat("x", 1023) + "\n"
	for range 64 << 10 {
		os.Stdout.WriteString(line)
	}
}
