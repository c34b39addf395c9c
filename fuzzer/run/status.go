package run

// Status is how one run of a test ended.
type Status string

const (
	StatusPass     Status = "pass"     // the test passed
	StatusSkip     Status = "skip"     // the test skipped itself (t.Skip)
	StatusFail     Status = "fail"     // the test reported failure (t.Error, t.Fatal, ...)
	StatusPanic    Status = "panic"    // a panic escaped and killed the process
	StatusDeadlock Status = "deadlock" // the runtime reported "all goroutines are asleep", or the patched runtime found the run stuck (a lock cycle, every goroutine blocked, the test goroutine leaked)
	StatusTimeout  Status = "timeout"  // goweave stopped the process at RunTimeout
	StatusCrash    Status = "crash"    // any other abnormal end (fatal error, signal, no test output)
)

// classify decides how a test process ended from its exit, whether goweave stopped it, and
// the marker lines of its output. The order matters: a deadlock message or a panic explains
// a failing exit code better than the FAIL line that testing prints before re-panicking.
func classify(exitCode int, signaled, stopped bool, m outputMarkers) Status {
	switch {
	case stopped:
		return StatusTimeout
	case m.Deadlock:
		return StatusDeadlock
	case m.Panic:
		return StatusPanic
	case m.Fatal != "" || signaled: // a runtime throw, or a signal not sent by goweave
		return StatusCrash
	case exitCode == 0 && m.NoTests:
		return StatusCrash // the test was not found: the binary and the list disagree
	case exitCode == 0 && m.Skip && !m.Pass:
		return StatusSkip
	case exitCode == 0:
		return StatusPass
	case exitCode == 1 && m.Fail:
		return StatusFail
	default:
		return StatusCrash
	}
}
