// Copyright goweave authors. Added to package runtime by the goweave overlay.

package runtime

// Which cases of a select were ready when it chose: Go picks among the ready
// cases of a select at random, so a choice made while another case was ready
// is one the next run may make differently (analysis/select_cause.go). The
// trace marks each such case (SelectCase b = 1, analysis/trace/FORMAT.md).

// goweaveSelectReady marks the ready cases of the select recorded as h,
// called by selectgo with every case's channel locked, before its first pass
// looks for a ready case: exactly the cases that pass may take.
func goweaveSelectReady(h uint64, scases []scase, nsends int) {
	if h == 0 {
		return
	}
	n := len(scases)
	for i := range scases {
		if c := scases[i].c; c != nil && goweaveCaseReady(c, i < nsends) {
			goweaveRec(h + 1 + uint64(goweaveSourceCase(i, nsends, n))).b = 1
		}
	}
}

// goweaveSelectReadyPref marks the ready cases of the select recorded as h
// that a select preference decided by taking case chosen (an scase index):
// that case, and each other one whose channel, locked alone, is ready just
// after (the preference's nested select has released its lock).
func goweaveSelectReadyPref(h uint64, scases []scase, nsends, chosen int) {
	if h == 0 {
		return
	}
	n := len(scases)
	for i := range scases {
		c := scases[i].c
		if c == nil {
			continue
		}
		ready := i == chosen
		if !ready {
			lock(&c.lock)
			ready = goweaveCaseReady(c, i < nsends)
			unlock(&c.lock)
		}
		if ready {
			goweaveRec(h + 1 + uint64(goweaveSourceCase(i, nsends, n))).b = 1
		}
	}
}

// goweaveCaseReady reports whether a select's case on c (locked) can proceed
// now: selectgo's first pass would take it.
func goweaveCaseReady(c *hchan, send bool) bool {
	if c.closed != 0 {
		return true // a receive gets the zero value, a send panics: both are taken
	}
	if send {
		return c.recvq.first != nil || c.qcount < c.dataqsiz
	}
	return c.sendq.first != nil || c.qcount > 0
}
