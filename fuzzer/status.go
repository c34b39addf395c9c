package fuzzer

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
