// Package closesignalafter reproduces survey 7's false recv-on-closed in IBM/sarama's async
// producer (retryHandler, async_producer.go:1608, closed at :1665 by shutdown): the handler
// receives into a variable inside an if/else (a plain receive in one branch, a select case
// in the other) and checks the variable against nil right after the if statement, the
// designed stop signal; the channel is closed only after every sender finished (shutdown
// waits for the in-flight messages), so no value can be lost to the close. Before 081040c
// goweave reported "receive ... got the zero value: the channel was closed at ...": the
// close-as-signal rule (analysis/rule_closesignal.go) looked for the nil check only in the
// receive's own statement list, and counted any sender other than the closer as a value
// that could be lost, even when every send happens before the close.
package closesignalafter

import (
	"sync"
	"testing"
)

type msg struct{ n int }

type producer struct {
	retries chan *msg
	input   chan *msg
	got     []*msg
}

func (p *producer) retryHandler(done chan<- struct{}) {
	defer close(done)
	var m *msg
	var buf []*msg
	for {
		if len(buf) == 0 {
			m = <-p.retries
		} else {
			select {
			case m = <-p.retries:
			case p.input <- buf[0]:
				buf = buf[1:]
				continue
			}
		}
		if m == nil {
			return // retries closed: shutting down
		}
		buf = append(buf, m)
		p.got = append(p.got, m)
	}
}

func TestRetryHandlerShutdown(t *testing.T) {
	p := &producer{retries: make(chan *msg), input: make(chan *msg, 2)} // input: room for both
	done := make(chan struct{})
	go p.retryHandler(done)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.retries <- &msg{i}
		}()
	}
	wg.Wait() // every retry was taken before the close
	close(p.retries)
	<-done
	if len(p.got) != 2 {
		t.Fatalf("got %d retries, want 2", len(p.got))
	}
}
