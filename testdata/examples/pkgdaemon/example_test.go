package pkgdaemon

import (
	"fmt"
	"time"
)

// An example runs on the main goroutine, which also started the janitor: still the
// package's daemon, not the example's leak.
func ExamplePut() {
	Put("b", time.Nanosecond)
	for Len() > 0 {
		<-defaultCache.swept
	}
	fmt.Println(Len())
	// Output: 0
}
