package mutate

// An order holds every goroutine whose operations it does not list until its last operation
// is admitted (schedule.Order). Replaying a chain from late in a run that was stopped at its
// time limit (trace META timelimit=1) therefore holds the other goroutines for about as long
// as the recorded run took to get there: under load the replay runs slower and the time limit
// comes first, with goroutines held short of where they block for good (two transfers held
// before the Locks of their lock cycle), so the run shows a hang the schedule made instead of
// the program's stuck state. Such orders are not proposed: an order of a time-limited run
// must end within the first third of the recorded run, which leaves a replay slower than the
// recording (a loaded machine: 450 of ~600 heartbeat ops replayed took the whole 3 s limit)
// and the held goroutines the rest to reach where they block.

// holdsPastTimeLimit reports whether an order over events (indexes into r's trace) replays
// operations requested after the first third of a run stopped at its time limit, by the
// trace's global stamps (the run's operations, in request order).
func holdsPastTimeLimit(r *Run, events []int) bool {
	evs := r.Trace.Events
	if r.Trace.Meta["timelimit"] != "1" || len(evs) == 0 {
		return false
	}
	first, last := evs[0].Pre, evs[0].Pre
	for i := range evs {
		first, last = min(first, evs[i].Pre), max(last, evs[i].Pre)
	}
	end := first + (last-first)/3
	for _, e := range events {
		if evs[e].Pre > end {
			return true
		}
	}
	return false
}
