package failing

import (
	"os"
	"testing"
)

// TestUnderGoweaveOnly fails in every run under goweave's runtime and passes under plain go
// test, as a test that prints wall-clock intervals the recording stretches does.
func TestUnderGoweaveOnly(t *testing.T) {
	if os.Getenv("GOWEAVE_RUN") != "" {
		t.Fatal("run by goweave")
	}
}
