// Package replicas queries replicated servers and keeps the fastest answer.
package replicas

import "time"

// Replica answers a query after some latency.
type Replica struct {
	Name    string
	Latency time.Duration
}

func (r Replica) query(q string) string {
	time.Sleep(r.Latency)
	return r.Name + ":" + q
}

// First asks every replica and returns the first answer.
//
// BUG: answers is unbuffered and only one answer is received, so every slower replica
// blocks forever on its send: one leaked goroutine per extra replica and query.
func First(q string, replicas []Replica) string {
	answers := make(chan string)
	for _, r := range replicas {
		go func() {
			answers <- r.query(q) // want "leak-chan"
		}()
	}
	return <-answers
}
