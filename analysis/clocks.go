package analysis

// Clocks answers happens-before queries between any two events of a trace. It keeps one
// vector clock per event, shared between consecutive events of a goroutine that learned
// nothing new in between, so it costs memory proportional to the number of
// synchronizations times the number of goroutines: meant for the moderate traces fuzzing
// works on, not for multi-million-event traces (Analyze does not need it).
type Clocks struct {
	gOf   []int32
	epoch []uint32
	clock [][]uint32 // per event; nil: never processed
}

// Clocks computes (once) the per-event clocks of the trace. Its methods satisfy the
// fuzzer's HB interface.
func (r *Result) Clocks() *Clocks {
	if r.clocks == nil {
		e := &engine{t: r.Trace, r: &Result{Trace: r.Trace}}
		e.r.eng = e
		e.f = &e.r.facts
		e.f.init()
		e.rec = &clockRecorder{}
		e.run()
		r.clocks = &Clocks{gOf: e.r.gOf, epoch: e.r.epoch, clock: e.rec.clock}
	}
	return r.clocks
}

// clockRecorder shares a goroutine's clock snapshot between its events until it changes.
type clockRecorder struct {
	clock [][]uint32
	cur   [][]uint32
}

// record stores the clock of goroutine g as event i's clock (unless already recorded).
func (e *engine) record(i int32, g int32) {
	rc := e.rec
	if rc.clock == nil {
		rc.clock = make([][]uint32, len(e.t.Events))
		rc.cur = make([][]uint32, e.ng)
	}
	if rc.clock[i] != nil {
		return
	}
	vc := e.vc[g]
	cur := rc.cur[g]
	same := cur != nil
	if same {
		for k, v := range vc {
			if int32(k) != g && cur[k] != v {
				same = false
				break
			}
		}
	}
	if !same {
		cur = append([]uint32(nil), vc...)
		rc.cur[g] = cur
	}
	rc.clock[i] = cur
}

// HappensBefore reports whether event i happens before event j. A send happens before the
// receive it pairs with (not the other way round), an event before every later event of
// its goroutine.
func (c *Clocks) HappensBefore(i, j int) bool {
	if i == j || i < 0 || j < 0 || i >= len(c.gOf) || j >= len(c.gOf) {
		return false
	}
	gi, gj := c.gOf[i], c.gOf[j]
	if gi < 0 || gj < 0 || c.epoch[i] == 0 || c.clock[j] == nil {
		return false
	}
	if gi == gj {
		return c.epoch[i] < c.epoch[j]
	}
	return c.epoch[i] <= c.clock[j][gi]
}

// Concurrent reports whether neither of events i and j happens before the other.
func (c *Clocks) Concurrent(i, j int) bool {
	return i != j && !c.HappensBefore(i, j) && !c.HappensBefore(j, i)
}
