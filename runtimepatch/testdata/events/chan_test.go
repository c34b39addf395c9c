// Package events holds small programs whose recorded events the runtimepatch
// tests check exactly. A "// @name" comment marks the line an event must be
// attributed to.
package events

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestChanUnbuffered(t *testing.T) {
	before := runtime.NumGoroutine()
	c := make(chan int) // @unbuf.make
	done := make(chan struct{})
	go func() { // @unbuf.spawn
		c <- 42     // @unbuf.send
		close(done) // @unbuf.close
	}()
	v := <-c // @unbuf.recv
	<-done   // @unbuf.recvclosed
	if v != 42 {
		t.Fatal(v)
	}
	// The child's GoEnd is recorded before the goroutine count drops: wait
	// for it, or a loaded machine may exit before the child has ended.
	for runtime.NumGoroutine() > before {
		runtime.Gosched()
	}
}

func TestChanBuffered(t *testing.T) {
	c := make(chan int, 2) // @buf.make
	c <- 1                 // @buf.send1
	c <- 2                 // @buf.send2
	close(c)               // @buf.close
	n := 0
	for range c { // @buf.range
		n++
	}
	if n != 2 {
		t.Fatal(n)
	}
}

func TestCloseTwice(t *testing.T) {
	c := make(chan int)
	close(c)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	close(c) // @closetwice.close
}

func TestSelect(t *testing.T) {
	a, b, c := make(chan int, 1), make(chan int, 1), make(chan int, 1) // @select.make
	var nilc chan int
	b <- 7
	got := -1
	select { // @select.recv4
	case <-a:
		got = 0
	case v := <-b:
		got = v
	case <-c:
		got = 2
	case <-nilc:
		got = 3
	}
	if got != 7 {
		t.Fatal(got)
	}
	unready := make(chan int)
	select { // @select.default
	case <-a:
	case unready <- 1:
	default:
	}
	select {
	case c <- 1: // @select.nbsend
	default:
	}
	close(a)
	select {
	case _, ok := <-a: // @select.nbclosed
		_ = ok
	default:
	}
}

// Which cases were ready when the select looked: Go chooses among those at random.
func TestSelectReady(t *testing.T) {
	full, closed, empty, space := make(chan int, 1), make(chan int), make(chan int, 1), make(chan int, 1)
	full <- 1
	close(closed)
	select { // @ready.four
	case <-full:
	case <-closed:
	case <-empty:
	case space <- 1:
	}
	sender := make(chan int)
	go func() { sender <- 1 }()
	waitBlocked(t, "chan send", "events.TestSelectReady.func1")
	select { // @ready.sender
	case <-sender:
	case <-empty:
	}
	late := make(chan int)
	go func() {
		waitBlocked(t, "select", "events.TestSelectReady(")
		late <- 1
	}()
	select { // @ready.none
	case <-late:
	case <-empty:
	}
}

func TestSelectParked(t *testing.T) {
	x, y := make(chan int), make(chan int)
	go func() {
		y <- 5 // @parked.send
	}()
	select { // @parked.select
	case <-x:
	case v := <-y:
		_ = v
	}
}

func TestLeak(t *testing.T) {
	c := make(chan int)
	go func() {
		<-c // @leak.recv
	}()
	waitBlocked(t, "chan receive", "events.TestLeak.func1")
}

// waitBlocked waits until a goroutine running fn is blocked for reason.
func waitBlocked(t *testing.T, reason, fn string) {
	buf := make([]byte, 1<<20)
	for range 500 {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "["+reason+"]:") && strings.Contains(g, fn) {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no goroutine of %s blocked in %s", fn, reason)
}

func TestTimerChannels(t *testing.T) {
	<-time.After(time.Millisecond) // @timer.after
	tm := time.NewTimer(time.Millisecond)
	never := make(chan int)
	select { // @timer.select
	case <-tm.C:
	case <-never:
	}
}

func TestDeferredClose(t *testing.T) {
	for i := 0; i < 2; i++ {
		func() {
			c := make(chan int, 1)
			for j := 0; j < 1; j++ {
				defer close(c) // @defer.close
			}
		}()
	}
}

func TestNilChanLeak(t *testing.T) {
	go func() {
		var c chan int
		c <- 1 // @nil.send
	}()
	waitBlocked(t, "chan send (nil chan)", "events.TestNilChanLeak.func1")
}

// TestTraceVariableHidden: the recording process hides GOWEAVE_TRACE from
// its environment, so processes it starts cannot overwrite its trace.
func TestTraceVariableHidden(t *testing.T) {
	if v, ok := os.LookupEnv("GOWEAVE_TRACE"); ok {
		t.Fatalf("GOWEAVE_TRACE=%q visible to the program", v)
	}
}

func TestSelectSendOnClosed(t *testing.T) {
	c, never := make(chan int), make(chan int)
	close(c)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	select { // @select.sendclosed
	case <-never:
	case c <- 1:
	}
}

func TestEmptySelectLeak(t *testing.T) {
	go func() {
		select {} // @select.empty
	}()
	waitBlocked(t, "select (no cases)", "events.TestEmptySelectLeak.func1")
}

// A received struct{} carries no value: the receive is a signal, not a value use.
func TestChanZeroSize(t *testing.T) {
	s := make(chan struct{}, 2)
	s <- struct{}{}
	s <- struct{}{}
	v := <-s // @zerosize.recv
	var never chan struct{}
	select { // @zerosize.select
	case w := <-s:
		v = w
	case <-never:
	}
	_ = v
}

// The first tick is handed to the blocked receive by the timer (run by the
// scheduler); the second is due before its receive, which runs the ticker
// itself (the value enters the buffer inside the receive); the third is
// received by a select.
func TestTickerFires(t *testing.T) {
	tk := time.NewTicker(time.Millisecond) // @ticker.make
	defer tk.Stop()
	<-tk.C // @ticker.recv1
	time.Sleep(5 * time.Millisecond)
	<-tk.C // @ticker.recv2
	never := make(chan int)
	select { // @ticker.select
	case <-tk.C:
	case <-never:
	}
}

// An AfterFunc timer, set and then reset, starts its function's goroutine;
// a ticker is made and reset.
func TestTimerSets(t *testing.T) {
	done := make(chan int)
	tm := time.AfterFunc(time.Hour, func() { // @afterfunc.set
		close(done) // @afterfunc.close
	})
	tm.Reset(time.Millisecond) // @afterfunc.reset
	<-done
	tk := time.NewTicker(time.Hour) // @tickerset.make
	tk.Reset(time.Millisecond)      // @tickerset.reset
	<-tk.C                          // @tickerset.recv
	tk.Stop()
}

// Two timers due together fire in one pass of the scheduler's timer check: the
// first wakes the select, the second's value enters its buffer with no receiver
// and Reset discards it (timerchandrain). The receive after the Reset gets the
// value of the fire after it. Repeated, since the two may be checked apart.
func TestTimerDrained(t *testing.T) {
	for range 20 {
		first := time.NewTimer(time.Millisecond)
		second := time.NewTimer(time.Millisecond) // @drain.make
		select {
		case <-first.C:
		case <-second.C:
			continue
		}
		time.Sleep(2 * time.Millisecond)
		second.Reset(time.Millisecond)
		<-second.C // @drain.recv
	}
}
