// Workers publish their reports through a sync.Map: each worker logs on the
// events channel, fills its report, then stores it under its name; the owner
// waits until it loads every report, reads them, then closes the channel.
// Each Store happens before the Load that observes it (sync.Map's documented
// synchronisation): no log may be sent after the close, and the reports are
// not raced on.
package syncmap

import (
	"runtime"
	"sync"
	"testing"
)

type report struct {
	name  string
	items []int
}

func work(reports *sync.Map, events chan<- string, name string, n int) {
	r := &report{name: name}
	for i := 0; i < n; i++ {
		r.items = append(r.items, i*i)
	}
	events <- name + " done"
	reports.Store(name, r)
}

func TestReports(t *testing.T) {
	var reports sync.Map
	events := make(chan string, 2)
	names := []string{"east", "west"}
	for _, name := range names {
		go work(&reports, events, name, 3)
	}
	total := 0
	for _, name := range names {
		for {
			v, ok := reports.Load(name)
			if ok {
				total += len(v.(*report).items)
				break
			}
			runtime.Gosched()
		}
	}
	close(events)
	if total != 6 {
		t.Fatalf("total = %d", total)
	}
	for range events {
	}
}
