// Package mapthrow writes one map from two goroutines with no lock: without the race
// detector, the runtime's own check ends the process with "fatal error: concurrent map
// writes", a crash no finding named (main at 320a3ad: "0 bugs", exit 0).
package mapthrow

// Fill writes n keys from a goroutine and n more from the caller.
func Fill(m map[int]int, n int) {
	done := make(chan bool)
	go func() {
		for i := 0; i < n; i++ {
			m[i] = i
		}
		done <- true
	}()
	for i := 0; i < n; i++ {
		m[n+i] = i
	}
	<-done
}
