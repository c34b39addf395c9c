// Package readings is a fixture for goweave's editor tests: a consumer that closes a channel
// after taking the first value, while the producer may still be sending to it.
package readings

import "testing"

// produce sends n readings to out and nothing else: it never checks whether the consumer
// still listens.
func produce(out chan<- int, n int) {
	for i := 1; i <= n; i++ {
		out <- i * 10 // want "send-on-closed"
	}
}

// TestFirstReading closes readings as soon as it has the first value. Nothing orders the
// close after the producer's remaining sends, so a send can hit the closed channel.
func TestFirstReading(t *testing.T) {
	readings := make(chan int, 4)
	go produce(readings, 3)
	first := <-readings
	close(readings) // related "send-on-closed"
	if first != 10 {
		t.Fatalf("first reading = %d, want 10", first)
	}
}

func average(xs []int) int {
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return sum / len(xs)
}

func TestAverage(t *testing.T) {
	if got := average([]int{10, 20, 30}); got != 20 {
		t.Fatalf("average = %d, want 20", got)
	}
}
