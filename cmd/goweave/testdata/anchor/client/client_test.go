// The channel the dependency makes and closes inside Dial is its own: no finding here.
package client

import (
	"testing"

	dep "goweave.test/anchordep"
)

func TestDial(t *testing.T) {
	c := dep.Dial()
	c.Wait()
}
