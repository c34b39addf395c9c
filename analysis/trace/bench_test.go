package trace

import (
	"bytes"
	"testing"
)

// BenchmarkRead decodes a trace of 1M events (channel sends with positions).
func BenchmarkRead(b *testing.B) {
	t := &Trace{Meta: map[string]string{"exit": "exit"}, Positions: []Position{{File: "/m/a.go", Line: 1}}}
	for i := 0; i < 1_000_000; i++ {
		t.Events = append(t.Events, Event{Kind: KindChanSend, Pos: 1, G: uint64(i % 64), Obj: 7, Pre: uint64(2*i + 1), Post: uint64(2*i + 1), A: uint64(i + 1)})
	}
	var buf bytes.Buffer
	if err := Encode(&buf, t); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(t.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
