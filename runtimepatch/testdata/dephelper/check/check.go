// Package check is a small assertion library in the manner of testify's assert and
// require: its functions report a failure through the test's T from their own frames.
package check

import "fmt"

// T is the part of *testing.T the checks use.
type T interface {
	Errorf(format string, args ...any)
	FailNow()
}

type helper interface{ Helper() }

// Equal reports a failure when got is not want. It does not mark itself a helper.
func Equal(t T, want, got int) bool {
	if want == got {
		return true
	}
	return fail(t, fmt.Sprintf("got %d, want %d", got, want))
}

// NoError reports err, marking itself a helper as testify does.
func NoError(t T, err error) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	if err == nil {
		return true
	}
	return fail(t, "unexpected error: "+err.Error())
}

// Require is NoError that stops the test (require.NoError).
func Require(t T, err error) {
	if !NoError(t, err) {
		t.FailNow()
	}
}

func fail(t T, msg string) bool {
	t.Errorf("%s", msg)
	return false
}
