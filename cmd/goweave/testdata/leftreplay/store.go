// Package leftreplay has two tests that pass their first run and fail most later ones:
// TestClaim for the lock file its first run leaves in os.TempDir(), TestFreshest for a
// select among ready results that takes a stale one in three runs of four.
package leftreplay

import (
	"errors"
	"os"
	"path/filepath"
)

// Claim makes the lock file name in dir, handed to a worker goroutine and back: a second
// claim of the same name fails for good.
func Claim(dir, name string) error {
	req, res := make(chan string), make(chan error)
	go func() {
		path := <-req
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			err = f.Close()
		}
		res <- err
	}()
	req <- filepath.Join(dir, name)
	return <-res
}

// Freshest returns the first result ready: with fresh and stale results all ready, any
// of them (the bug: it should prefer fresh).
func Freshest(fresh <-chan int, stale ...<-chan int) (int, error) {
	select {
	case v := <-fresh:
		return v, nil
	case v := <-stale[0]:
		return v, errors.New("stale")
	case v := <-stale[1]:
		return v, errors.New("stale")
	case v := <-stale[2]:
		return v, errors.New("stale")
	}
}
