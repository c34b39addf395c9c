package analysis

import (
	"strconv"
	"testing"

	"github.com/goweave/goweave/analysis/trace/tracetest"
)

// Close as a signal and its look-alikes: a worker that defers close(errCh) and sends only
// on failure, readers that check the error against nil, and readers that use the zero value
// as a real one.
const signalSource = `package p

import "errors"

type snapshot struct{ n int }

func run(fail bool) <-chan error {
	errCh := make(chan error, 1)
	go func() {
		defer close(errCh) // mark:deferred-close
		if fail {
			errCh <- errors.New("failed") // mark:report
		}
	}()
	return errCh
}

func plainClose(ch chan *snapshot) {
	close(ch) // mark:plain-close
}

func checkedInIf(ch <-chan error) error {
	if err := <-ch; err != nil { // mark:if-checked
		return err
	}
	return nil
}

func checkedAfter(ch <-chan error) error {
	err := <-ch // mark:next-checked
	if err != nil {
		return err
	}
	return nil
}

func compared(ch <-chan error) bool {
	return (<-ch) == nil // mark:compared
}

func used(ch <-chan *snapshot) int {
	s := <-ch // mark:used
	return s.n
}

func returned(ch <-chan error) error {
	return <-ch // mark:returned
}

func checkedAfterBranches(ch <-chan *snapshot, out chan<- *snapshot, buf []*snapshot) {
	var s *snapshot
	for {
		if len(buf) == 0 {
			s = <-ch // mark:branch-checked
		} else {
			select {
			case s = <-ch: // mark:case-checked
			case out <- buf[0]:
				buf = buf[1:]
				continue
			}
		}
		if s == nil {
			return
		}
		buf = append(buf, s)
	}
}

func checkedAfterLoop(ch <-chan *snapshot) int {
	var s *snapshot
	for i := 0; i < 3; i++ {
		s = <-ch // mark:loop-end
	}
	if s == nil {
		return 0
	}
	return s.n
}

func drainedErr(ch <-chan error) (err error) {
	err = <-ch // mark:assigned-returned
	return
}

func usedAfterBranch(ch <-chan *snapshot, wait bool) int {
	var s *snapshot
	if wait {
		s = <-ch // mark:branch-used
	}
	return s.n
}

func boolTested(ran, ok chan bool, t interface{ Fatal(...any) }) {
	if <-ran { // mark:bool-if
		t.Fatal("ran")
	}
	if !(<-ok) { // mark:bool-not
		t.Fatal("not ok")
	}
	x := <-ok && true // mark:bool-and
	_ = x
}

func asserted(ran chan bool, errs chan error, n chan int, assert, require fakeAssert) {
	assert.False(nil, <-ran) // mark:assert-false
	require.NoError(nil, <-errs) // mark:require-noerror
	So(<-ran, ShouldBeFalse) // mark:convey-false
	assert.Equal(nil, 3, <-n) // mark:assert-equal
	So(<-n, ShouldEqual, 3) // mark:convey-equal
}
`

func TestZeroChecked(t *testing.T) {
	file, lines := writeMarked(t, t.TempDir(), "p.go", signalSource)
	for mark, want := range map[string]bool{
		"if-checked": true, "next-checked": true, "compared": true,
		"used": false, "returned": false, "report": false,
		"branch-checked": true, "case-checked": true, "loop-end": false, "branch-used": false,
		"bool-if": true, "bool-not": true, "bool-and": false,
		"assert-false": true, "require-noerror": true, "convey-false": true, "assert-equal": false, "convey-equal": false,
	} {
		if got := zeroChecked(file, lines[mark]); got != want {
			t.Errorf("zeroChecked(%s) = %v, want %v", mark, got, want)
		}
	}
	for mark, want := range map[string]bool{"returned": true, "assigned-returned": true, "used": false, "next-checked": false, "branch-used": false} {
		if got := zeroReturned(file, lines[mark]); got != want {
			t.Errorf("zeroReturned(%s) = %v, want %v", mark, got, want)
		}
	}
	for mark, want := range map[string]bool{"deferred-close": true, "plain-close": false} {
		if got := deferredClose(file, lines[mark]); got != want {
			t.Errorf("deferredClose(%s) = %v, want %v", mark, got, want)
		}
	}
}

// A receive that gets the zero value of a closed channel: not reported when it reads the
// close as a signal (its value checked against nil, or a deferred close by the only
// sender), reported when the zero value is used as a real one, and reported when another
// goroutine than the closer sent on the channel (a value it could have taken).
func TestRecvOnClosedSignal(t *testing.T) {
	file, lines := writeMarked(t, t.TempDir(), "p.go", signalSource)
	at := func(mark string) string { return file + ":" + strconv.Itoa(lines[mark]) }
	for _, tc := range []struct {
		name        string
		recv, close string
		closerSends bool // the closing goroutine sent (and the value was taken) before closing
		otherSends  bool // another goroutine sent on the channel
		mainCloses  bool // the receiving goroutine closes, after it took the other's value
		want        bool
	}{
		{"checked in its if", "if-checked", "plain-close", false, false, false, false},
		{"checked right after", "next-checked", "plain-close", false, false, false, false},
		{"compared with nil", "compared", "plain-close", false, false, false, false},
		{"deferred close, no send", "returned", "deferred-close", false, false, false, false},
		{"deferred close by the only sender", "used", "deferred-close", true, false, false, false},
		{"zero value used", "used", "plain-close", false, false, false, true},
		{"returned, plain close", "returned", "plain-close", false, false, false, true},
		{"checked, but another goroutine sent", "if-checked", "deferred-close", false, true, false, true},
		// sarama's retryHandler: shutdown closes after every producer's send was taken
		{"checked after its branch, every send before the close", "branch-checked", "plain-close", false, true, true, false},
		{"checked right after, every send before the close", "next-checked", "plain-close", false, true, true, false},
		{"used, every send before the close", "used", "plain-close", false, true, true, true},
		// sarama's admin calls: the closer drains its own error channel and returns it
		{"returned by the closer, every send before the close", "assigned-returned", "plain-close", false, true, true, false},
		{"returned directly by the closer", "returned", "plain-close", false, true, true, false},
		{"returned, closed by another goroutine", "assigned-returned", "plain-close", false, true, false, true},
	} {
		b := tracetest.New()
		m := b.Main()
		c := m.MakeChan(0, file+":8")
		w := m.Go(file + ":9")
		if tc.closerSends {
			w.Send(c, at("report"))
			m.RecvBare(c, file+":70")
		}
		if tc.otherSends {
			o := m.Go(file + ":71")
			o.Send(c, file+":72")
			m.RecvBare(c, file+":73")
		}
		if tc.mainCloses {
			m.Close(c, at(tc.close))
		} else {
			w.Close(c, at(tc.close))
		}
		m.Recv(c, at(tc.recv))
		r := analyze(t, b)
		if tc.want {
			want(t, r, "recv-on-closed", Actual, "p.go:"+strconv.Itoa(lines[tc.recv]))
		} else if r.Findings != nil {
			for _, f := range r.Findings {
				if f.Kind == "recv-on-closed" {
					t.Errorf("%s: unexpected %s", tc.name, f.Message)
				}
			}
		}
	}
}
