package sendafter

import "testing"

// Three workers each forward two values to out; the test takes all six, then closes out.
// Every send is received before the close, so no send can follow it. goweave before
// d15d8b5: two predicted send-on-closed findings (in 10 and 4 of 30 runs), exit 1; after:
// none, exit 0.
func TestAllSendsReceivedBeforeClose(t *testing.T) {
	out := make(chan int, 2)
	defer close(out)
	in := make([]chan int, 3)
	for i := range in {
		in[i] = make(chan int, 2)
		go func(in chan int) {
			for v := range in {
				out <- v
			}
		}(in[i])
	}
	go func() {
		for n := 0; n < 2; n++ {
			for _, c := range in {
				c <- n
			}
		}
	}()
	for sum := 0; sum < 6; sum++ {
		<-out
	}
	for _, c := range in { // the forwarders end; out is closed after they sent everything
		close(c)
	}
}
