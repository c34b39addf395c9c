package main

import (
	"os"
	"testing"
)

// Every command's -h prints its usage and exits 0, like `goweave -h`; a flag it does not
// know is still an error (2).
func TestHelpExitsZero(t *testing.T) {
	stdout, stderr := os.Stdout, os.Stderr
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	os.Stdout, os.Stderr = devnull, devnull
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()
	for name, c := range commands {
		for _, h := range []string{"-h", "-help", "--help"} {
			if code := c.run([]string{h}); code != 0 {
				t.Errorf("goweave %s %s exited %d, want 0", name, h, code)
			}
		}
		if name == "version" {
			continue // takes no flags and ignores its arguments
		}
		if code := c.run([]string{"-no-such-flag"}); code != 2 {
			t.Errorf("goweave %s -no-such-flag exited %d, want 2", name, code)
		}
	}
}
