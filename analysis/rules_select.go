package analysis

import "github.com/goweave/goweave/analysis/trace"

// selectCases checks, for every case of select i that was not chosen, whether an operation
// in another goroutine could have served it: an operation of the opposite direction on the
// same channel that does not happen before the select (by the weak clock: that a mutex
// happened to order the two in this run does not make the case impossible; checked here
// against the latest operation of each goroutine and position), a close of the channel for
// a receive case, or a later operation the select does not happen before (checked by
// resolvePending when it comes). A goroutine's latest execution of a select is the one most
// likely concurrent with later operations, so one pending entry per select case suffices.
// Cases are aggregated per select statement: a case has a partner when any execution's
// channel had one (a per-call channel that a cancelled call abandons is not a dead case).
func (e *engine) selectCases(i, g int32, ev *trace.Event) {
	f := e.f
	if ev.Flags.Has(trace.FlagSuccess) && ev.A < uint64(len(ev.Cases)) {
		// taken by an event outside the recorded code (a context's cancellation, a timer)?
		if c := ev.Cases[ev.A]; c.Obj != 0 {
			if x, ok := e.chanIndex(c.Obj); !ok || e.chans[x].foreign() {
				site := selectKey{pos: ev.Pos, cas: -1}
				if ev.Pos == 0 {
					site.g = g
				}
				f.selectForeign[site] = true
			}
		}
	}
	for ci, c := range ev.Cases {
		if c.Obj == 0 {
			continue // a nil case never fires; setting a case's channel to nil is deliberate
		}
		x, ok := e.chanIndex(c.Obj)
		if !ok {
			continue
		}
		ch := &e.chans[x]
		key := selectKey{pos: ev.Pos, cas: c.Index}
		if ev.Pos == 0 {
			key.g = g
		}
		sc := e.selectCase(key)
		if sc == nil {
			sc = &SelectCase{Case: c.Index, Send: c.Send, Partner: -1, Known: true}
			f.selects[key] = sc
			f.selectOrder = append(f.selectOrder, key)
			e.cacheSelectCase(key, sc)
		}
		sc.Select, sc.Chan = int(i), c.Obj
		sc.Known = sc.Known && !ch.foreign()
		sc.Default = sc.Default || ev.Flags.Has(trace.FlagNonBlocking)
		chosen := ev.Flags.Has(trace.FlagSuccess) && uint64(ci) == ev.A
		if chosen {
			sc.Chosen = true
			continue
		}
		class := classRecvCase
		if c.Send {
			class = classSendCase
		}
		e.resolvePending(x, i, g, c.Send)
		if !sc.HasPartner() {
			if !c.Send && ch.closeEv >= 0 {
				sc.Partner = int(ch.closeEv)
			} else {
				partners := sendClasses
				if c.Send {
					partners = recvClasses
				}
			scan:
				for _, class := range partners {
					if !ch.mayBeUnordered(class, g, &e.wvc[g]) {
						continue
					}
					for _, u := range ch.users[class] {
						if u.g != g && !u.before(e, g, true) {
							sc.Partner = int(u.ev)
							break scan
						}
					}
				}
			}
			if !sc.HasPartner() {
				e.addPending(ch, key, i, c.Send)
			}
		}
		e.userSeen(i, g, x, class)
	}
}

func (e *engine) addPending(ch *chanState, key selectKey, i int32, send bool) {
	for k := range ch.pending {
		if ch.pending[k].key == key {
			ch.pending[k].sel = i
			return
		}
	}
	ch.pending = append(ch.pending, pendingCase{key: key, sel: i, send: send})
}

// resolvePending gives a partner to the pending select cases on channel x that operation i
// of goroutine g could have served: opposite direction (send: i is a send or a close),
// another goroutine, and the select does not happen before i.
func (e *engine) resolvePending(x, i, g int32, send bool) {
	ch := &e.chans[x]
	for k := 0; k < len(ch.pending); k++ {
		p := ch.pending[k]
		if p.send == send || e.r.gOf[p.sel] == g {
			continue
		}
		if e.hbAt(p.sel, g, true) {
			continue
		}
		if sc := e.selectCase(p.key); sc != nil && !sc.HasPartner() {
			sc.Partner = int(i)
		}
		ch.pending[k] = ch.pending[len(ch.pending)-1]
		ch.pending = ch.pending[:len(ch.pending)-1]
		k--
	}
}

// selectCase returns f.selects[key], from the engine's dense table when the key has one.
func (e *engine) selectCase(key selectKey) *SelectCase {
	if key.g == 0 && key.pos != 0 && int(key.pos) < len(e.selectSites) {
		if cases := e.selectSites[key.pos]; key.cas >= 0 && key.cas < len(cases) && cases[key.cas] != nil {
			return cases[key.cas]
		}
	}
	sc := e.f.selects[key]
	if sc != nil {
		e.cacheSelectCase(key, sc)
	}
	return sc
}

// cacheSelectCase enters sc = f.selects[key] in the dense table (case indices are small:
// a select has at most a few dozen cases).
func (e *engine) cacheSelectCase(key selectKey, sc *SelectCase) {
	if key.g != 0 || key.pos == 0 || int(key.pos) >= len(e.selectSites) || key.cas < 0 || key.cas >= 64 {
		return
	}
	cases := e.selectSites[key.pos]
	for len(cases) <= key.cas {
		cases = append(cases, nil)
	}
	cases[key.cas] = sc
	e.selectSites[key.pos] = cases
}
