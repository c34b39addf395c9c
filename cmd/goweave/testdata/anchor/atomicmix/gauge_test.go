package atomicmix

import "testing"

func TestGauge(t *testing.T) {
	var g Gauge
	done := make(chan struct{})
	go func() {
		g.Set(3)
		close(done)
	}()
	g.Reset()
	<-done
}
