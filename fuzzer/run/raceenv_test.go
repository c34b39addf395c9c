package run

import "testing"

func TestRaceOptionsKeepUserSettings(t *testing.T) {
	t.Setenv("GORACE", "halt_on_error=1")
	if got, want := raceOptions(), "GORACE=halt_on_error=1 atexit_sleep_ms=0"; got != want {
		t.Errorf("raceOptions() = %q, want %q", got, want)
	}
	t.Setenv("GORACE", "")
	if got, want := raceOptions(), "GORACE=atexit_sleep_ms=0"; got != want {
		t.Errorf("raceOptions() = %q, want %q", got, want)
	}
}
