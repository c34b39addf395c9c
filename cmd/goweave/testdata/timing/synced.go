package timing

import "sync"

// Journal records keys at once and, through a worker goroutine, their order of arrival:
// Add queues the key, the worker appends it; Sync asks the worker to catch up.
type Journal struct {
	mu    sync.Mutex
	keys  map[string]bool
	order []string
	queue chan string
	sync  chan chan struct{}
	quit  chan struct{}
}

// NewJournal starts the journal's worker.
func NewJournal() *Journal {
	j := &Journal{keys: map[string]bool{}, queue: make(chan string, 8), sync: make(chan chan struct{}, 1), quit: make(chan struct{})}
	go j.worker()
	return j
}

// Add records key and queues it for the worker.
func (j *Journal) Add(key string) {
	j.mu.Lock()
	j.keys[key] = true
	j.mu.Unlock()
	j.queue <- key
}

// Sync returns once the worker has appended every key added before it: the worker answers
// the request it sends.
func (j *Journal) Sync() {
	done := make(chan struct{})
	j.sync <- done
	<-done
}

// Close stops the worker.
func (j *Journal) Close() { close(j.quit) }

// Consistent reports whether every key recorded has been appended.
func (j *Journal) Consistent() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.order) == len(j.keys)
}

func (j *Journal) worker() {
	for {
		select {
		case key := <-j.queue:
			j.mu.Lock()
			j.order = append(j.order, key)
			j.mu.Unlock()
		case done := <-j.sync:
			// The bug: it answers without appending the keys still queued, so a Sync
			// that comes before the worker took them returns too early.
			close(done)
		case <-j.quit:
			return
		}
	}
}

// Task runs one job in the background unless it is stopped first.
type Task struct {
	stop   chan struct{}
	result chan int
}

// StartTask starts job.
func StartTask(job func() int) *Task {
	t := &Task{stop: make(chan struct{}), result: make(chan int, 1)}
	go func() {
		select {
		case <-t.stop:
			t.result <- 0 // stopped before it ran
		default:
			t.result <- job()
		}
	}()
	return t
}

// Stop stops the task and returns its job's result, 0 when it had not run.
func (t *Task) Stop() int {
	close(t.stop)
	return <-t.result
}
