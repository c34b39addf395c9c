// A queue whose Put reports ErrClosed instead of panicking: it sends on the
// job channel and recovers the panic a closed channel raises. The test puts
// after closing on purpose. Nothing to report: the panic is caught by design.
package recoveredsend

import (
	"errors"
	"testing"
)

var ErrClosed = errors.New("queue closed")

type queue struct{ jobs chan int }

func (q *queue) Put(v int) (err error) {
	defer func() {
		if recover() != nil {
			err = ErrClosed
		}
	}()
	q.jobs <- v
	return nil
}

func (q *queue) Close() { close(q.jobs) }

func TestPutAfterClose(t *testing.T) {
	q := &queue{jobs: make(chan int, 1)}
	if err := q.Put(1); err != nil {
		t.Fatal(err)
	}
	if v := <-q.jobs; v != 1 {
		t.Fatalf("got %d", v)
	}
	q.Close()
	if err := q.Put(2); !errors.Is(err, ErrClosed) {
		t.Fatalf("Put after Close: %v, want ErrClosed", err)
	}
}
