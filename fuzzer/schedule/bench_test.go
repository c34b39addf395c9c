package schedule

import (
	"fmt"
	"testing"
	"time"

	"github.com/goweave/goweave/analysis/trace"
)

func bigSchedule(ops int) *Schedule {
	o := &Order{Window: 200 * time.Millisecond}
	for i := range ops {
		o.Ops = append(o.Ops, OpID{G: GoID(fmt.Sprintf("1.%d", 1+i%8)), Kind: trace.KindLock,
			Pos: Pos{File: fmt.Sprintf("/home/u/project/pkg%d/file.go", i%20), Line: 10 + i%300}, N: 1 + i/8})
	}
	return &Schedule{Order: o}
}

func BenchmarkCodec(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s := bigSchedule(n)
		enc, err := Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Marshal/ops=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				Marshal(s)
			}
		})
		b.Run(fmt.Sprintf("Unmarshal/ops=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			for b.Loop() {
				if _, err := Unmarshal(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
