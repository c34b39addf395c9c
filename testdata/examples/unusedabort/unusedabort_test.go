// A summing worker that can be aborted: Abort closes its abort channel. The
// test never aborts, so in every run the abort case of the select has no
// partner, yet the case is not dead: Abort serves it. Nothing to report (a
// select case is dead only when no code could serve it; see the corpus kernel
// select_case_without_partner for one that is).
package unusedabort

import "testing"

type summer struct {
	abort chan struct{}
	out   chan int
}

func newSummer() *summer {
	return &summer{abort: make(chan struct{}), out: make(chan int, 1)}
}

// Abort stops a sum under way.
func (s *summer) Abort() { close(s.abort) }

func (s *summer) sum(in <-chan int) {
	total := 0
	for {
		select {
		case v, ok := <-in:
			if !ok {
				s.out <- total
				return
			}
			total += v
		case <-s.abort:
			s.out <- -1
			return
		}
	}
}

func TestSumWithoutAbort(t *testing.T) {
	s := newSummer()
	in := make(chan int)
	go s.sum(in)
	for i := 1; i <= 4; i++ {
		in <- i
	}
	close(in)
	if got := <-s.out; got != 10 {
		t.Fatalf("sum = %d, want 10", got)
	}
}
