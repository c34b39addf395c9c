// Package helpercausecheck is a small assertion library in the manner of testify's require:
// it marks itself a helper, reports with Errorf and stops the test with FailNow, from its
// own frames.
package helpercausecheck

// T is the part of *testing.T the checks use.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	FailNow()
}

// True stops the test when ok is false.
func True(t T, ok bool, msg string) {
	t.Helper()
	if !ok {
		t.Errorf("%s", msg)
		t.FailNow()
	}
}
