package schedule

import "strconv"

// Outcome is what the runtime reports, in trace META keys, about how a run followed its
// schedule (FORMAT.md, "What the runtime reports back").
type Outcome struct {
	Steered        bool   // the runtime read a schedule
	Path           string // the schedule file it read
	Admitted       int    // order ops admitted
	Diverged       int    // 1-based index of the order op that did not arrive in time; 0 none
	SelectTimeouts int    // select preferences that fell back after their window
	DelayTimeouts  int    // delays that ended by their window
}

// Followed reports whether the run kept to its order (no divergence).
func (o Outcome) Followed() bool { return o.Diverged == 0 }

// ReadOutcome extracts the outcome from a trace's META; unparsable numbers count as 0.
func ReadOutcome(meta map[string]string) Outcome {
	num := func(k string) int {
		n, err := strconv.Atoi(meta[k])
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	path, ok := meta["schedule"]
	return Outcome{
		Steered:        ok,
		Path:           path,
		Admitted:       num("schedule.admitted"),
		Diverged:       num("schedule.diverged"),
		SelectTimeouts: num("schedule.select.timeouts"),
		DelayTimeouts:  num("schedule.delay.timeouts"),
	}
}
