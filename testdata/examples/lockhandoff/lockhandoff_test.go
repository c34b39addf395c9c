// A reader takes a read lock and hands it, with its job, to a worker through a channel; the
// worker releases it when the job is done, while other readers hold the same RWMutex. Legal
// in Go and ordered by the hand-off (the receive happens after the send, which comes after
// the RLock). Nothing to report.
package lockhandoff

import (
	"sync"
	"testing"
)

type job struct {
	mu  *sync.RWMutex
	val int
}

func worker(jobs <-chan job, out chan<- int) {
	for j := range jobs {
		out <- j.val
		j.mu.RUnlock()
	}
}

func TestHandOff(t *testing.T) {
	var mu sync.RWMutex
	jobs := make(chan job)
	out := make(chan int, 3)
	go worker(jobs, out)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.RLock()
			defer mu.RUnlock()
		}()
	}
	for i := 1; i <= 3; i++ {
		mu.RLock()
		jobs <- job{&mu, i}
	}
	close(jobs)
	wg.Wait()
	mu.Lock() // every read lock was released
	mu.Unlock()
	if v := <-out + <-out + <-out; v != 6 {
		t.Fatal(v)
	}
}
