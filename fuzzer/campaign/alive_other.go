//go:build !unix

package campaign

// processAlive cannot tell here: every process counts as alive, so nothing in use is
// removed.
func processAlive(int) bool { return true }
