package metrics

import (
	"sync"
	"testing"
)

func TestWorkersReportToCollector(t *testing.T) {
	c := NewCollector()
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go Work(c, &wg, w, 100)
	}
	wg.Wait()
	if total := c.Stop(); total > 300 {
		t.Errorf("total %d, want at most 300", total)
	}
}
