// Identical workers, started at one go statement, each looping on "take the
// next job" with a plain receive until a zero job tells it to stop. Which
// worker takes which job does not matter: nothing to report. (The jobs come
// from goroutines of their own, so the workers' receives are unordered.)
package loopworkers

import (
	"sync"
	"testing"
)

func work(first int, jobs <-chan int, out chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	for job := first; job != 0; {
		out <- job * job
		job = <-jobs
	}
}

func TestSquares(t *testing.T) {
	jobs := make(chan int)
	out := make(chan int, 10)
	var wg sync.WaitGroup
	for w := 1; w <= 3; w++ {
		wg.Add(1)
		go work(w, jobs, out, &wg)
	}
	var producers sync.WaitGroup
	for j := 4; j <= 6; j++ {
		producers.Add(1)
		go func() {
			defer producers.Done()
			jobs <- j
		}()
	}
	producers.Wait()
	for w := 0; w < 3; w++ {
		jobs <- 0
	}
	wg.Wait()
	close(out)
	sum := 0
	for v := range out {
		sum += v
	}
	if sum != 91 {
		t.Fatalf("sum of squares = %d, want 91", sum)
	}
}
