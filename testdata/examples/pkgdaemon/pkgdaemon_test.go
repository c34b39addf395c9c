package pkgdaemon

import (
	"testing"
	"time"
)

func TestExpiredEntriesGo(t *testing.T) {
	Put("a", time.Nanosecond)
	for Len() > 0 {
		<-defaultCache.swept
	}
}
