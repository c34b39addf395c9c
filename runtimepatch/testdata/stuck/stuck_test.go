package stuck

import (
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestStuckChanCycle: three goroutines each wait to receive from the next one
// before sending to the previous one, and the test goroutine waits for them: every
// goroutine blocked, no timer.
func TestStuckChanCycle(t *testing.T) {
	a, b, c := make(chan int), make(chan int), make(chan int)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); <-b; a <- 1 }() // @cycle.a
	go func() { defer wg.Done(); <-c; b <- 1 }() // @cycle.b
	go func() { defer wg.Done(); <-a; c <- 1 }() // @cycle.c
	wg.Wait()                                    // @cycle.wait
}

// TestStuckLockCycle: two goroutines take two mutexes in opposite orders (a
// channel makes each hold its first before either asks for its second), while
// another goroutine keeps sleeping and working (and recording) forever.
func TestStuckLockCycle(t *testing.T) {
	var a, b sync.Mutex
	go busy()
	held := make(chan bool)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		held <- true
		<-held
		b.Lock() // @lock.ab
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		<-held
		held <- true
		a.Lock() // @lock.ba
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}

// TestStuckSelfLock: a goroutine locks a mutex it holds, which nothing else
// references, while another goroutine keeps working.
func TestStuckSelfLock(t *testing.T) {
	go busy()
	done := make(chan bool)
	go func() {
		// Not a lone sync.Mutex: 8 bytes without pointers go to the allocator's
		// 16-byte tiny blocks, and busy's mutex sharing this one's block would
		// keep it reachable, hiding the leak from the GC (as from stock Go's
		// goroutineleak profile). 16 bytes are an object of their own.
		var mu struct {
			sync.Mutex
			_ [8]byte
		}
		mu.Lock()
		mu.Lock() // @self.lock
		close(done)
	}()
	<-done
}

// TestNotStuckSemaphore locks a mutex it holds, which another goroutine unlocks
// after a while (allowed: a mutex is not tied to the goroutine that locked it).
func TestNotStuckSemaphore(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	go func() {
		time.Sleep(notStuckFor)
		mu.Unlock()
	}()
	mu.Lock()
	mu.Unlock()
}

// busy works and sleeps forever, with recorded operations on a mutex and a channel.
func busy() {
	var mu sync.Mutex
	ch := make(chan int, 1)
	n := 0
	for {
		mu.Lock()
		n++
		mu.Unlock()
		ch <- n
		<-ch
		time.Sleep(time.Millisecond)
	}
}

// TestStuckWaitGroupLeak: the test goroutine waits on a WaitGroup whose last
// worker is blocked on a channel nothing else references, while another goroutine
// stays alive (sleeping, with no recorded operation).
func TestStuckWaitGroupLeak(t *testing.T) {
	go func() {
		for {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(last bool) {
			defer wg.Done()
			if last {
				never := make(chan int)
				<-never // @wg.leak
			}
		}(i == 2)
	}
	wg.Wait() // @wg.wait
}

// TestStuckLeakBesideBusy: the test goroutine receives from a channel nothing else
// references while another goroutine keeps working and recording: the run is never quiet.
func TestStuckLeakBesideBusy(t *testing.T) {
	go busy()
	jobs := make(chan int)
	<-jobs // @busy.leak
}

// TestStuckHandoff: a mutex locked by one goroutine is unlocked by another
// (allowed) and taken by a third, which keeps it and blocks on a channel. Then
// the first waits for a mutex a fourth holds, which waits for the handed-off one:
// no lock cycle (its holder is the third, not the first) but, every goroutine
// blocked, a global deadlock.
func TestStuckHandoff(t *testing.T) {
	var a, b sync.Mutex
	s1, s2, s3, go1 := make(chan bool), make(chan bool), make(chan bool), make(chan bool)
	go func() { // first
		a.Lock()
		s1 <- true
		<-go1
		b.Lock() // @handoff.first
	}()
	<-s1
	a.Unlock()  // the test goroutine unlocks the first's mutex
	go func() { // third
		a.Lock()
		s2 <- true
		<-make(chan int) // @handoff.third
	}()
	<-s2
	go func() { // fourth
		b.Lock()
		s3 <- true
		a.Lock() // @handoff.fourth
	}()
	<-s3
	go1 <- true      // the first goes on to b
	<-make(chan int) // @handoff.end
}

const notStuckFor = 1200 * time.Millisecond

// TestNotStuckSleep sleeps, with every other goroutine blocked.
func TestNotStuckSleep(t *testing.T) {
	go func() { <-make(chan int) }()
	time.Sleep(notStuckFor)
}

// TestNotStuckTimerChan waits on a timer's channel.
func TestNotStuckTimerChan(t *testing.T) {
	tm := time.NewTimer(notStuckFor)
	<-tm.C
	select {
	case <-time.After(notStuckFor / 4):
	case <-make(chan int):
	}
}

// TestNotStuckAfterFunc waits for a function a timer will run.
func TestNotStuckAfterFunc(t *testing.T) {
	done := make(chan bool)
	time.AfterFunc(notStuckFor, func() { close(done) })
	<-done
}

// TestNotStuckPipe reads a pipe whose writer is another process, which writes
// after a while: the only goroutine waits in the network poller.
func TestNotStuckPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "sleep 1.2; echo ok")
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	buf := make([]byte, 3)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// TestNotStuckSignal waits for a signal another process sends after a while.
func TestNotStuckSignal(t *testing.T) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	cmd := exec.Command("sh", "-c", "sleep 1.2; kill -USR2 "+itoa(os.Getpid()))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-c
	cmd.Wait()
}

// TestNotStuckSlowWorkers: the test goroutine waits on a WaitGroup whose workers
// sleep before they are done.
func TestNotStuckSlowWorkers(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(notStuckFor)
		}()
	}
	wg.Wait()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestNotStuckSpawnHandoff: the first goroutine locks mtx and hands it to a
// flusher it starts, which unlocks it later (prometheus/client_golang's
// summary); the first then waits for buf, which the second holds while it
// waits for mtx. The locker of mtx is not the one who unlocks it, so the two
// do not wait for each other: the run ends when the flusher is done.
func TestNotStuckSpawnHandoff(t *testing.T) {
	var buf, mtx sync.Mutex
	locked, bufHeld := make(chan bool), make(chan bool)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		mtx.Lock()
		go func() { // the flusher
			defer wg.Done()
			time.Sleep(notStuckFor)
			mtx.Unlock()
		}()
		locked <- true
		<-bufHeld
		buf.Lock()
		buf.Unlock()
	}()
	go func() {
		defer wg.Done()
		<-locked
		buf.Lock()
		bufHeld <- true
		mtx.Lock()
		mtx.Unlock()
		buf.Unlock()
	}()
	wg.Wait()
}
