package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// A cache's worker empties its queue while it holds the lock a setter takes before it
// queues (karlseguin/ccache's Clear). A drain guarded by len(queue) > 0, by the queue's only
// receiver, never waits: no mixed deadlock. The same receive unguarded, or guarded while
// another goroutine receives from the queue too, is one.
func TestMixedDeadlockLenGuardedDrain(t *testing.T) {
	dir := t.TempDir()
	src := func(name, body string) string {
		file := filepath.Join(dir, name)
		text := "package c\n\nfunc (c *cache) clear() {\n\tc.mu.Lock()\n" + body + "\tc.mu.Unlock()\n}\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	guarded := src("guarded.go", "\tfor len(c.queue) > 0 {\n\t\t<-c.queue\n\t}\n")     // receive at line 6
	ifGuarded := src("ifguarded.go", "\tif 0 != len(c.queue) {\n\t\t<-c.queue\n\t}\n") // line 6
	plain := src("plain.go", "\tfor {\n\t\t<-c.queue\n\t}\n")                          // line 6
	for _, tc := range []struct {
		name, file  string
		otherRecv   bool
		wantPredict bool
	}{
		{"for len > 0", guarded, false, false},
		{"if 0 != len", ifGuarded, false, false},
		{"unguarded", plain, false, true},
		{"guarded, two receivers", guarded, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tracetest.New()
			m := b.Main()
			mu := b.Mutex()
			queue := m.MakeChan(4, "s.go:10")
			setter := m.Go("s.go:12")
			worker := m.Go("s.go:13")
			setter.Lock(mu, "s.go:41")
			setter.Unlock(mu, "s.go:42")
			setter.Send(queue, "s.go:199")
			worker.Lock(mu, tc.file+":4")
			worker.Recv(queue, tc.file+":6")
			worker.Unlock(mu, tc.file+":8")
			if tc.otherRecv {
				setter.Send(queue, "s.go:199")
				m.Recv(queue, "s.go:30")
			}
			r := analyze(t, b)
			if tc.wantPredict {
				want(t, r, "mixed-deadlock", Predicted, filepath.Base(tc.file)+":6")
			} else {
				wantNo(t, r, "mixed-deadlock")
			}
		})
	}
}
