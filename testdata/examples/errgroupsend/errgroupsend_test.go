// Workers of an errgroup send their results on a buffered channel; the
// owner closes it after Wait returned, then drains it. Wait returns only
// after every worker's function returned, so no send can run after the
// close: nothing to report.
package errgroupsend

import (
	"testing"

	"golang.org/x/sync/errgroup"
)

func squares(n int) (int, error) {
	out := make(chan int, n)
	var g errgroup.Group
	for i := 1; i <= n; i++ {
		g.Go(func() error {
			out <- i * i
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	close(out)
	sum := 0
	for v := range out {
		sum += v
	}
	return sum, nil
}

func TestSquares(t *testing.T) {
	if sum, err := squares(4); err != nil || sum != 30 {
		t.Fatalf("squares(4) = %d, %v", sum, err)
	}
}
