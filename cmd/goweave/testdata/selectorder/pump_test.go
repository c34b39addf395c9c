package selectorder

import "testing"

func TestPump(t *testing.T) {
	in := make(chan int)
	p := newPump(in)
	go func() {
		for i := 0; i < 3; i++ {
			in <- i
		}
		close(in)
	}()
	n := 0
	for range p.out {
		n++
	}
	if n != 3 {
		t.Fatalf("got %d values", n)
	}
}

func TestPoll(t *testing.T) {
	in, out := make(chan int, 1), make(chan int, 1)
	done := make(chan string)
	go func() { done <- poll(in, out, 1) }()
	in <- 7
	if r := <-done; r == "" {
		t.Fatal("no result")
	}
}
