package events

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// The exit tests end the process; the runtimepatch tests run each alone.

func TestExitFail(t *testing.T) {
	c := make(chan int, 1)
	c <- 1 // @exit.fail
	t.Fatal("failing on purpose")
}

func TestExitOsExit(t *testing.T) {
	c := make(chan int, 1)
	c <- 1 // @exit.osexit
	os.Exit(3)
}

func TestExitPanic(t *testing.T) {
	c := make(chan int, 1)
	c <- 1 // @exit.panic
	panic("boom on purpose")
}

func TestExitDeadlock(t *testing.T) {
	c := make(chan int)
	<-c // @exit.deadlock
}

func TestExitSignal(t *testing.T) {
	c := make(chan int)
	go func() {
		<-c // @exit.signal
	}()
	waitBlocked(t, "chan receive", "events.TestExitSignal.func1")
	fmt.Println("READY")
	time.Sleep(time.Hour)
}
