package races

// recoverAndSignal ends a goroutine that may panic, then signals done. It lives in a file of
// its own: the analysis takes a send or close whose own file shows it recovered for designed
// behaviour (no send-on-closed finding), and TestSendCloseRace's race is a bug.
func recoverAndSignal(done chan bool) {
	recover()
	done <- true
}
