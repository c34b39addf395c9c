package build

import "fmt"

// Error is returned by Build (and so by a campaign) when a package's test binary cannot be built
// (it does not compile) or cannot be used (it fails to list its tests). Callers show Output,
// which is what the go command (or the binary) printed, to the user.
type Error struct {
	Package  string // the package pattern or import path whose test binary failed to build
	Output   string // the go command's combined output (compiler errors)
	ExitCode int    // exit code of the go command
}

func (e *Error) Error() string {
	return fmt.Sprintf("building tests of %s failed (exit %d):\n%s", e.Package, e.ExitCode, e.Output)
}
