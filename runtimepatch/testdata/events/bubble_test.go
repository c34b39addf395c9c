package events

import (
	"testing"
	"testing/synctest"
)

// TestBubbleSpawn: goroutines started inside a testing/synctest bubble carry
// the bubble's id in their GoSpawn (b), one id per bubble; others carry 0.
func TestBubbleSpawn(t *testing.T) {
	done := make(chan struct{})
	go func() { close(done) }() // @bubble.outside
	<-done
	for range 2 {
		synctest.Test(t, func(t *testing.T) {
			c := make(chan int)
			go func() { c <- 1 }() // @bubble.inside
			<-c
		})
	}
}
