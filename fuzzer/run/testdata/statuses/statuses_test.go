// Package statuses has one test per way a test process can end; the fuzzer's tests run
// them and check the status goweave gives each.
package statuses

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
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

// TestHangWithChild starts processes that would outlive the test if goweave killed only
// the test process or its process group: a child, a child in its own session (setsid) and
// an orphan in its own session (the shell that started it exits). It then writes "started"
// to $STATUSES_STARTED_FILE and hangs, or with STATUSES_PASS=1 passes at once.
func TestHangWithChild(t *testing.T) {
	child := exec.Command("sleep", "3600")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	session := exec.Command("sleep", "3600")
	session.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	orphan := exec.Command("sh", "-c", "sleep 3600 >/dev/null 2>&1 &")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := orphan.Run(); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("STATUSES_STARTED_FILE"); p != "" {
		os.WriteFile(p, []byte("started"), 0o644)
	}
	if os.Getenv("STATUSES_PASS") == "1" {
		return
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
