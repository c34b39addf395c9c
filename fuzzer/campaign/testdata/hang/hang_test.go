// Package hang has a test that runs for an hour: a campaign's time budget must stop it.
package hang

import (
	"testing"
	"time"
)

func TestHour(t *testing.T) { time.Sleep(time.Hour) }
