package failing

// queue hands values to a consumer until its last reference is dropped. The bug: unref
// closes input while a late queueing (one that holds no reference) may still send on it.
type queue struct {
	input chan int
	stop  chan struct{}
	refs  int
}

func newQueue() *queue { return &queue{input: make(chan int), stop: make(chan struct{}), refs: 1} }

func (q *queue) unref() {
	q.refs--
	if q.refs == 0 {
		close(q.input)
	}
}

// enqueue reports whether v was handed over; false once the queue stopped.
func (q *queue) enqueue(v int) bool {
	select {
	case <-q.stop:
		return false
	case q.input <- v:
		return true
	}
}
