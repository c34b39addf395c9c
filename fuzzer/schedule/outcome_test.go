package schedule

import "testing"

func TestReadOutcome(t *testing.T) {
	o := ReadOutcome(map[string]string{"schedule": "/tmp/s", "schedule.admitted": "12", "schedule.diverged": "13",
		"schedule.select.timeouts": "2", "schedule.delay.timeouts": "x"})
	want := Outcome{Steered: true, Path: "/tmp/s", Admitted: 12, Diverged: 13, SelectTimeouts: 2}
	if o != want || o.Followed() {
		t.Errorf("outcome %+v, want %+v", o, want)
	}
	if o := ReadOutcome(map[string]string{"exit": "exit"}); o.Steered || !o.Followed() {
		t.Errorf("free run: %+v", o)
	}
}
