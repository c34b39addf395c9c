// Package testonly has two leaks: one in the package's code, which a test only calls, and
// one of a goroutine the test itself starts and forgets. The first is the package's bug (an
// error); the second is true but the test's own (test-only, a warning).
package testonly

// First asks every mirror and returns the first answer. The channel is unbuffered, so the
// slower mirrors' answers have nobody left to receive them: their goroutines block forever.
func First(mirrors []func() string) string {
	answers := make(chan string)
	for _, m := range mirrors {
		go func() {
			answers <- m() // want "leak-chan"
		}()
	}
	return <-answers
}
