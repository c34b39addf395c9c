// Package bubble has an operator that blocks forever on a nil input, by design (as a
// receive from a nil channel does). Its test asserts that inside a testing/synctest bubble
// and recovers synctest's deadlock panic: the goroutines it leaves blocked are the test's
// assertion, not a leak of the package.
package bubble

import "sync"

// ForEach calls f for each value of in, on n goroutines, and returns when in is closed.
func ForEach(in <-chan int, n int, f func(int)) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range in {
				f(v)
			}
		}()
	}
	wg.Wait()
}
