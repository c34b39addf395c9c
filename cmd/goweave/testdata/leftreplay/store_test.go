package leftreplay

import (
	"os"
	"testing"
)

func TestClaim(t *testing.T) {
	if err := Claim(os.TempDir(), "leftreplay.lock"); err != nil {
		t.Fatalf("claim: %v", err)
	}
}

func TestFreshest(t *testing.T) {
	fresh := make(chan int, 1)
	var stale [3]chan int
	for k := range stale {
		stale[k] = make(chan int, 1)
		stale[k] <- k
	}
	fresh <- 42
	if v, err := Freshest(fresh, stale[0], stale[1], stale[2]); err != nil {
		t.Fatalf("Freshest = %d, %v", v, err)
	}
}
