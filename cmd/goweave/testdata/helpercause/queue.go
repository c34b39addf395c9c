// Package helpercause has a test that fails by a random draw, through a dependency's
// assertion (as testify's require), with the order of two Locks fixed by the failure.
package helpercause

import "sync"

// Queue holds items unless paused.
type Queue struct {
	mu     sync.Mutex
	paused bool
	items  []int
}

// Push adds v.
func (q *Queue) Push(v int) {
	q.mu.Lock() // the push
	defer q.mu.Unlock()
	if !q.paused {
		q.items = append(q.items, v)
	}
}

// Pause stops adding.
func (q *Queue) Pause() {
	q.mu.Lock() // the pause
	defer q.mu.Unlock()
	q.paused = true
}
