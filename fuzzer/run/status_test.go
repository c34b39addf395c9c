package run

import "testing"

// The lines a test process ends with decide its status. The patched runtime's stuck check
// (runtimepatch zz_goweave_stuck.go) ends a deadlocked run itself, with its fatal error
// line and then SIGQUIT's goroutine dump (exit status 2): a deadlock, not a crash or a
// timeout.
func TestClassifyStuckRun(t *testing.T) {
	for _, tc := range []struct {
		lines    []string
		exit     int
		signaled bool
		stopped  bool
		want     Status
	}{
		{[]string{"fatal error: all goroutines are asleep - deadlock!"}, 2, false, false, StatusDeadlock},
		{[]string{"fatal error: goweave: deadlock: lock cycle: goroutine 7 -> 8 -> 7 each wait for a mutex the next holds", "", "SIGQUIT: quit"}, 2, false, false, StatusDeadlock},
		{[]string{"fatal error: goweave: deadlock: all goroutines are blocked on channels or locks, no timer pending (found by the run's state)", "SIGQUIT: quit"}, 2, false, false, StatusDeadlock},
		{[]string{"fatal error: goweave: deadlock: the test goroutine can never be woken (GC leak detection after 150 ms without an event)"}, 0, true, false, StatusDeadlock},
		// Stopped at the time limit: a timeout, whatever it printed.
		{[]string{"SIGQUIT: quit"}, 2, false, true, StatusTimeout},
		// Another fatal error is a crash.
		{[]string{"fatal error: concurrent map writes"}, 2, false, false, StatusCrash},
	} {
		var m outputMarkers
		for _, l := range tc.lines {
			m.note([]byte(l))
		}
		if got := classify(tc.exit, tc.signaled, tc.stopped, m); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.lines[0], got, tc.want)
		}
	}
}
