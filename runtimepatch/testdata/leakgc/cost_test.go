package leakgc

import (
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"testing"
)

// held keeps the channels of the "lingering" goroutines of the cost
// benchmarks reachable.
var held []chan int

// BenchmarkLeakGC measures one leak-detection GC cycle (the goroutineleak
// profile's WriteTo, debug=0) against a plain runtime.GC, in a process with
// n goroutines blocked on reachable channels and n blocked on unreachable
// ones. Needs GOEXPERIMENT=goroutineleakprofile (skips otherwise). The leaked
// goroutines of a size stay for the rest of the process, so sizes grow in
// order and later sizes include the earlier leaks.
func BenchmarkLeakGC(b *testing.B) {
	leak := pprof.Lookup("goroutineleak")
	if leak == nil {
		b.Skip("build with GOEXPERIMENT=goroutineleakprofile")
	}
	for _, n := range []int{10, 1000, 10000} {
		for range n {
			c := make(chan int)
			held = append(held, c)
			go func() { <-c }()
			lost := make(chan int)
			go func() { <-lost }()
		}
		settle()
		b.Run(fmt.Sprintf("goroutines=%d/leakgc", 2*n), func(b *testing.B) {
			for b.Loop() {
				if err := leak.WriteTo(io.Discard, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("goroutines=%d/gc", 2*n), func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
			}
		})
	}
}
