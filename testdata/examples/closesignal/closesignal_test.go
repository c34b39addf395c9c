// Close as a signal: the worker defers close(errCh) and sends only on failure; the test
// reads the error and checks it against nil. The zero value is the designed outcome.
// Nothing to report.
package closesignal

import (
	"errors"
	"testing"
)

func run(fail bool) <-chan error {
	errCh := make(chan error, 1)
	go func() {
		defer close(errCh)
		if fail {
			errCh <- errors.New("failed")
		}
	}()
	return errCh
}

func TestRunOK(t *testing.T) {
	if err := <-run(false); err != nil {
		t.Fatal(err)
	}
}

func TestRunFails(t *testing.T) {
	if err := <-run(true); err == nil {
		t.Fatal("want an error")
	}
}

func TestRunIgnored(t *testing.T) {
	ch := run(false)
	err := <-ch
	if err != nil {
		t.Fatal(err)
	}
}
