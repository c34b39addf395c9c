package helpercause

import (
	"math/rand/v2"
	"testing"

	check "goweave.test/helpercausecheck"
)

// TestUnluckyRequire fails by a random draw, whatever order its goroutines took. The worker
// pushes once the test function returns: after the Pause when the draw passed, without it
// when the failure stopped the test (so "the push came while the pause had not run yet" in
// every failing run, none passing: the failure's own doing, no cause).
func TestUnluckyRequire(t *testing.T) {
	q := &Queue{}
	start, done := make(chan struct{}), make(chan struct{})
	go func() {
		<-start
		q.Push(1)
		close(done)
	}()
	defer func() {
		close(start)
		<-done
	}()
	check.True(t, rand.IntN(3) != 0, "unlucky draw") // the failure
	q.Pause()
}
