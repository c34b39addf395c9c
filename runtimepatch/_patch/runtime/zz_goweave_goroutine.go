// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave goroutine hooks: spawn (newproc) and end (goexit1), recorded for
// every non-system goroutine whatever code started it.

package runtime

// goweaveSpawn records that parent started child at return address pc
// (newproc, on the system stack, before the child can run).
func goweaveSpawn(parent, child *g, pc uintptr) {
	child.goweave = goweaveG{}
	if !goweaveOn || isSystemGoroutine(child, false) {
		return
	}
	goweaveMayPass(parent, child, parent == getg().m.curg) // zz_goweave_stuck.go
	goweaveSpawnID(parent, child)
	goweaveNoteExample(child) // zz_goweave_example.go
	var pos uint32
	if parent == getg().m.curg {
		pos = goweavePosOf(pc)
	} else if v := goweaveLookup(pc); v < goweaveFirstClass {
		// Started from the scheduler (a timer's AfterFunc): no user
		// goroutine's stack to attribute a library spawn to.
		pos = v
	}
	if via := parent.goweave.spawnPC; via != 0 {
		// Spawned by the standard library on behalf of a user call
		// (WaitGroup.Go): attribute the spawn, and the child's Done, to it.
		parent.goweave.spawnPC = 0
		pos = goweavePosOf(via)
		child.goweave.attrPC, child.goweave.attrBits = via, goweaveAttrWgDone
	}
	// The child's library operations without a user frame are attributed
	// to its spawn (or, spawned by a library goroutine, to that one's).
	child.goweave.spawnPos = pos
	if pos == 0 {
		child.goweave.spawnPos = parent.goweave.spawnPos
	}
	if parent.goweave.timer != 0 {
		goweaveTimerSpawn(parent, child, pos) // zz_goweave_timer.go
		return
	}
	goweaveCountOnly(parent, pos)
	h := goweaveOpen(parent, goweaveKGoSpawn, 0, pos, 0)
	if h == 0 {
		return
	}
	e := goweaveRec(h)
	e.a = child.goid
	e.b = goweaveBubbleID(child)
	e.post = e.pre
}

// goweaveBubbleID is the id of the testing/synctest bubble gp runs in, 0 for
// none: the analysis tells the goroutines a bubble left blocked when
// synctest.Test ended in its deadlock panic (the test's own verdict) from
// leaks (analysis/leak_bubble.go).
func goweaveBubbleID(gp *g) uint64 {
	if gp.bubble == nil {
		return 0
	}
	return gp.bubble.id
}

// goweaveGoEnd records the end of the current goroutine (goexit1).
func goweaveGoEnd() {
	if !goweaveOn {
		return
	}
	gp := getg()
	if isSystemGoroutine(gp, false) {
		return
	}
	if goweaveSchedOn {
		goweaveGoEndSteer(gp)
	}
	if h := goweaveOpen(gp, goweaveKGoEnd, 0, 0, 0); h != 0 {
		e := goweaveRec(h)
		e.post = e.pre
	}
}
