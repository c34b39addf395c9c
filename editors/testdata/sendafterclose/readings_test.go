// Package readings is a fixture for goweave's editor tests: a consumer that closes a channel
// after taking the first value, while the producer is still sending to it.
package readings

import (
	"testing"
	"time"
)

// produce sends n readings to out, one per sensor read. It never checks whether the
// consumer still listens.
func produce(out chan<- int, n int) {
	for i := 1; i <= n; i++ {
		time.Sleep(time.Millisecond) // reading the sensor takes a while
		out <- i * 10                // want "send-on-closed"
	}
}

// TestFirstReading only needs the first reading, so it closes the channel as soon as it
// has it and then waits for the producer to stop. The producer's next send hits the
// closed channel: close(readings) should only happen after produce returned.
func TestFirstReading(t *testing.T) {
	readings := make(chan int, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		produce(readings, 3)
	}()
	first := <-readings
	close(readings) // related "send-on-closed"
	<-done
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
