// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave trace writer. The trace is written once, on whichever exit path the
// process takes first: runExitHooks (os.Exit, return from main), the fatal
// panic/throw path (printDebugLog: unrecovered panic, throw, checkdead's
// deadlock, SIGQUIT and other crash signals) and dieFromSignal (SIGTERM,
// SIGINT, SIGHUP). Some of these run on the signal stack or with the world
// stopped and m.mallocing set, so the writer is nowritebarrierrec-safe: it
// allocates nothing, stores no pointers, and writes through the runtime's own
// write1/closefd from preallocated buffers.

package runtime

import (
	"internal/goarch"
	"internal/goos"
	"internal/runtime/atomic"
	"unsafe"
)

// How the process ended (META "exit").
const (
	goweaveExitNone = iota
	goweaveExitNormal
	goweaveExitPanic
	goweaveExitFatal
	goweaveExitDeadlock
	goweaveExitSignal
)

var (
	goweaveExitKind   atomic.Uint32
	goweaveExitCode   int
	goweaveSignalNo   uint32
	goweaveMsg        uintptr // message bytes (read-only data or a live panic value)
	goweaveMsgLen     int
	goweaveFlushState atomic.Uint32 // 0 not written, 1 writing, 2 written
	goweaveFlushM     uintptr       // the m writing the trace
	goweaveOut        [64 << 10]byte
	goweaveOutN       int
	goweaveMeta       [16 << 10]byte
	goweaveMetaN      int
	goweaveWriteErr   bool
)

// goweaveNote records how the process is ending; the first note wins.
//
//go:nosplit
func goweaveNote(kind uint32, msg string) {
	if goweaveExitKind.CompareAndSwap(goweaveExitNone, kind) {
		goweaveMsg = uintptr(unsafe.Pointer(unsafe.StringData(msg)))
		goweaveMsgLen = len(msg)
	}
}

// goweaveNoteFatal is called from throw and fatal.
//
//go:nosplit
func goweaveNoteFatal(s string) { goweaveNote(goweaveExitFatal, s) }

// goweaveNoteDeadlock is called from checkdead before its fatal.
//
//go:nosplit
func goweaveNoteDeadlock(s string) { goweaveNote(goweaveExitDeadlock, s) }

// goweaveNotePanic is called from fatalpanic (an unrecovered panic).
//
//go:nosplit
func goweaveNotePanic(p *_panic) {
	var s string
	if p != nil {
		switch v := p.arg.(type) {
		case string:
			s = v
		case plainError:
			s = string(v)
		case errorString:
			s = string(v)
		}
	}
	goweaveNote(goweaveExitPanic, s)
}

// goweaveNoteSignal is called when a signal is about to kill the process.
//
//go:nosplit
func goweaveNoteSignal(sig uint32) {
	if goweaveExitKind.CompareAndSwap(goweaveExitNone, goweaveExitSignal) {
		goweaveSignalNo = sig
	}
}

// goweaveLeakGCRan is set when the exit hook ran the GC's goroutine leak
// detection (META "leakgc"): goroutines it proved leaked have status _Gleaked.
// Never set on Go 1.25, which has no leak detection.
var goweaveLeakGCRan bool

// goweaveExitHook is called from runExitHooks: os.Exit or return from main.
// On a normal exit it first runs one leak-detection GC cycle where the
// runtime has one (goweaveLeakGC, Go 1.26 and later), unless
// GOWEAVE_LEAKGC=0: goroutines blocked on primitives no runnable goroutine
// or global can reach become _Gleaked in GOROUTINES. Cost:
// docs/leak-detection.md.
//
// The GC runs before the exit is noted, so that a goroutine panicking
// meanwhile still ends the trace as "panic"; and the write runs with
// preemption off: a concurrent fatal panic freezes the world and waits for
// the write to finish, which a preempted writer never would.
func goweaveExitHook(code int) {
	goweaveStuck.exiting.Store(true) // its waits (the leak GC below, the settle) are not the program's
	if goweaveOn && goweaveSchedOn && goweaveExitKind.Load() == goweaveExitNone {
		goweaveExitSettle()
	}
	if goweaveOn && goweaveExitKind.Load() == goweaveExitNone && gogetenv("GOWEAVE_LEAKGC") != "0" {
		goweaveLeakGCRan = goweaveLeakGC()
	}
	if goweaveExitKind.CompareAndSwap(goweaveExitNone, goweaveExitNormal) {
		goweaveExitCode = code
	}
	mp := acquirem()
	goweaveFlush()
	releasem(mp)
}

// goweaveDie is called from dieFromSignal.
//
//go:nowritebarrierrec
func goweaveDie(sig uint32) {
	goweaveNoteSignal(sig)
	goweaveFlush()
}

// goweaveFlush writes the trace once. A second caller waits for the first
// to finish, so that no exit path ends the process mid-write.
//
//go:nowritebarrierrec
func goweaveFlush() {
	if !goweaveOn {
		return
	}
	mp := uintptr(unsafe.Pointer(getg().m))
	if !goweaveFlushState.CompareAndSwap(0, 1) {
		if goweaveFlushM == mp {
			return // crashed inside our own write
		}
		for i := 0; i < 5000 && goweaveFlushState.Load() != 2; i++ {
			usleep(1000)
		}
		return
	}
	goweaveFlushM = mp
	goweaveWriteTrace()
	goweaveFlushState.Store(2)
}

//go:nowritebarrierrec
func goweaveWriteTrace() {
	nev, _ := goweaveLoadCounts()
	if nev > goweaveCapacity {
		nev = goweaveCapacity
	}
	npos := uint64(goweaveNPos.Load())
	if npos > goweaveMaxPositions {
		npos = goweaveMaxPositions
	}
	ng := goweaveCollectGoroutines(nev)
	goweaveBuildMeta()

	goweavePutString("GWTRACE\x00")
	goweavePut32(1)
	goweavePut32(uint32(unsafe.Sizeof(goweaveEvent{})))

	goweaveSection(1, uint64(goweaveMetaN))
	goweavePutMem(uintptr(unsafe.Pointer(&goweaveMeta[0])), goweaveMetaN)

	// STRINGS: "" , the wait reasons (id 1+reason), then file and function of
	// each position (ids 1+W+2i and 2+W+2i).
	nwr := uint64(len(waitReasonStrings))
	size := uint64(4)
	for i := range waitReasonStrings {
		size += 4 + uint64(len(waitReasonStrings[i]))
	}
	for i := uint64(0); i < npos; i++ {
		p := goweavePositionAt(i)
		size += 8 + uint64(p.fileLen) + uint64(p.fnLen)
	}
	goweaveSection(2, size)
	goweavePut32(0)
	for i := range waitReasonStrings {
		goweavePut32(uint32(len(waitReasonStrings[i])))
		goweavePutString(waitReasonStrings[i])
	}
	for i := uint64(0); i < npos; i++ {
		p := goweavePositionAt(i)
		goweavePut32(p.fileLen)
		goweavePutMem(p.file, int(p.fileLen))
		goweavePut32(p.fnLen)
		goweavePutMem(p.fn, int(p.fnLen))
	}

	goweaveSection(3, npos*16)
	for i := uint64(0); i < npos; i++ {
		p := goweavePositionAt(i)
		goweavePut32(uint32(1 + nwr + 2*i))
		goweavePut32(p.line)
		goweavePut32(0)
		goweavePut32(uint32(2 + nwr + 2*i))
	}

	goweaveSanitize(nev)
	goweaveSection(4, nev*uint64(unsafe.Sizeof(goweaveEvent{})))
	goweaveOutFlush()
	goweaveWriteAll(goweaveEvents, nev*uint64(unsafe.Sizeof(goweaveEvent{})))

	goweaveSection(5, ng*32)
	goweaveOutFlush()
	goweaveWriteAll(goweaveGBuf, ng*32)

	goweaveSection(0xFFFF, 16)
	goweavePut64(nev)
	goweavePut64(ng)
	goweaveOutFlush()
	closefd(goweaveFD)
}

// goweaveSanitize blanks (kind 0) what a goroutine still writing when the
// trace is written can leave half-done: a Select not followed by all of its
// cases, and cases without their Select.
//
//go:nowritebarrierrec
func goweaveSanitize(n uint64) {
	for h := uint64(1); h <= n; h++ {
		e := goweaveRec(h)
		switch e.kind {
		case goweaveKSelect:
			k := uint64(e.aux)
			ok := h+k <= n
			for i := uint64(1); ok && i <= k; i++ {
				c := goweaveRec(h + i)
				ok = c.kind == goweaveKSelectCase && c.g == e.g
			}
			if ok {
				h += k
			} else {
				e.kind = 0
			}
		case goweaveKSelectCase:
			e.kind = 0
		}
	}
}

func goweavePositionAt(i uint64) *goweavePosition {
	return (*goweavePosition)(unsafe.Pointer(goweavePos + uintptr(i)*unsafe.Sizeof(goweavePosition{})))
}

// goweaveCollectGoroutines fills goweaveGBuf with the GOROUTINES records of
// every live non-system goroutine and returns their count.
//
//go:nowritebarrierrec
func goweaveCollectGoroutines(nev uint64) uint64 {
	ptr, n := atomicAllG()
	var k uint64
	for i := uintptr(0); i < n && k < goweaveMaxGoroutines; i++ {
		gp := atomicAllGIndex(ptr, i)
		status := readgstatus(gp) &^ _Gscan
		if status == _Gidle || status == _Gdead || status == goweaveGdeadextra || isSystemGoroutine(gp, false) {
			continue
		}
		var reason uint32
		if (status == _Gwaiting || status == goweaveGleaked) && gp.waitreason != waitReasonZero {
			reason = 1 + uint32(gp.waitreason)
		}
		last := gp.goweave.last
		if last > nev {
			last = 0
		}
		r := goweaveGBuf + uintptr(k)*32
		*(*uint64)(unsafe.Pointer(r)) = gp.goid
		*(*uint32)(unsafe.Pointer(r + 8)) = status
		*(*uint32)(unsafe.Pointer(r + 12)) = reason
		*(*uint64)(unsafe.Pointer(r + 16)) = last
		*(*uint64)(unsafe.Pointer(r + 24)) = gp.parentGoid
		k++
	}
	return k
}

//go:nowritebarrierrec
func goweaveBuildMeta() {
	goweaveMetaN = 0
	goweaveMetaKV("goversion", buildVersion)
	goweaveMetaKV("goos", goos.GOOS)
	goweaveMetaKV("goarch", goarch.GOARCH)
	goweaveMetaKey("pid")
	goweaveMetaInt(goweavePid())
	module := goweaveModule
	if len(module) > 1 {
		module = module[:len(module)-1]
	}
	goweaveMetaKV("module", module)
	if goweaveLeakGCRan {
		goweaveMetaKV("leakgc", "1")
	}
	goweaveTimeLimitMeta()
	goweaveStuckMeta() // zz_goweave_stuck.go
	kind := goweaveExitKind.Load()
	switch kind {
	case goweaveExitNormal:
		goweaveMetaKV("exit", "exit")
		goweaveMetaKey("exitcode")
		code := goweaveExitCode
		if code < 0 {
			goweaveMetaByte('-')
			code = -code
		}
		goweaveMetaInt(uint64(code))
	case goweaveExitPanic:
		goweaveMetaKV("exit", "panic")
	case goweaveExitDeadlock:
		goweaveMetaKV("exit", "deadlock")
	case goweaveExitSignal:
		goweaveMetaKV("exit", "signal")
		goweaveMetaKey("signal")
		goweaveMetaInt(uint64(goweaveSignalNo))
	default:
		goweaveMetaKV("exit", "fatal")
	}
	if goweaveMsgLen > 0 {
		goweaveMetaKey("message")
		n := goweaveMsgLen
		if n > 2048 {
			n = 2048
		}
		for i := 0; i < n; i++ {
			c := *(*byte)(unsafe.Pointer(goweaveMsg + uintptr(i)))
			if c == '\n' || c == '\r' {
				c = ' '
			}
			goweaveMetaByte(c)
		}
		goweaveMetaByte('\n')
	}
	goweaveMetaKey("dropped")
	goweaveMetaInt(goweaveDropped.Load())
	goweaveMetaKey("stamp")
	_, stamp := goweaveLoadCounts()
	goweaveMetaInt(stamp)
	if id := goweaveTestGoid.Load(); id != 0 {
		goweaveMetaKey("testgoid")
		goweaveMetaInt(id)
	}
	goweaveMetaExample() // zz_goweave_example.go
	if goweaveSchedPath != "" {
		goweaveMetaKV("schedule", goweaveSchedPath)
		goweaveMetaKey("schedule.ops")
		goweaveMetaInt(uint64(len(goweaveSchedOps)))
		goweaveMetaKey("schedule.admitted")
		goweaveMetaInt(uint64(goweaveAdmitted))
		goweaveMetaKey("schedule.diverged")
		goweaveMetaInt(uint64(goweaveDiverged))
		goweaveMetaKey("schedule.select.timeouts")
		goweaveMetaInt(uint64(goweaveSelTimeouts.Load()))
		goweaveMetaKey("schedule.delay.timeouts")
		goweaveMetaInt(uint64(goweaveDelayTimeouts.Load()))
		goweaveMetaKey("schedule.window.extensions")
		goweaveMetaInt(uint64(goweaveExtended))
		goweaveMetaKey("schedule.delay.held")
		goweaveMetaInt(uint64(goweaveDelayHeld.Load()))
		goweaveMetaKey("schedule.exit.pending")
		goweaveMetaInt(uint64(goweaveExitPending))
	}
}

func goweaveMetaByte(c byte) {
	if goweaveMetaN < len(goweaveMeta) {
		goweaveMeta[goweaveMetaN] = c
		goweaveMetaN++
	}
}

func goweaveMetaStr(s string) {
	for i := 0; i < len(s); i++ {
		goweaveMetaByte(s[i])
	}
}

func goweaveMetaKey(k string) {
	goweaveMetaStr(k)
	goweaveMetaByte('=')
}

func goweaveMetaKV(k, v string) {
	goweaveMetaKey(k)
	goweaveMetaStr(v)
	goweaveMetaByte('\n')
}

// goweaveMetaInt writes v in decimal and ends the line.
func goweaveMetaInt(v uint64) {
	goweaveMetaDigits(v)
	goweaveMetaByte('\n')
}

// goweaveMetaDigits writes v in decimal.
func goweaveMetaDigits(v uint64) {
	var digits [20]byte
	i := len(digits)
	for {
		i--
		digits[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	for ; i < len(digits); i++ {
		goweaveMetaByte(digits[i])
	}
}

func goweaveSection(tag uint32, length uint64) {
	goweavePut32(tag)
	goweavePut32(0)
	goweavePut64(length)
}

func goweavePut32(v uint32) {
	if len(goweaveOut)-goweaveOutN < 4 {
		goweaveOutFlush()
	}
	b := goweaveOut[goweaveOutN : goweaveOutN+4]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	goweaveOutN += 4
}

func goweavePut64(v uint64) {
	goweavePut32(uint32(v))
	goweavePut32(uint32(v >> 32))
}

func goweavePutString(s string) {
	if len(s) > 0 {
		goweavePutMem(uintptr(unsafe.Pointer(unsafe.StringData(s))), len(s))
	}
}

func goweavePutMem(p uintptr, n int) {
	for n > 0 {
		if goweaveOutN == len(goweaveOut) {
			goweaveOutFlush()
		}
		k := len(goweaveOut) - goweaveOutN
		if k > n {
			k = n
		}
		for i := 0; i < k; i++ {
			goweaveOut[goweaveOutN+i] = *(*byte)(unsafe.Pointer(p + uintptr(i)))
		}
		goweaveOutN += k
		p += uintptr(k)
		n -= k
	}
}

func goweaveOutFlush() {
	goweaveWriteAll(uintptr(unsafe.Pointer(&goweaveOut[0])), uint64(goweaveOutN))
	goweaveOutN = 0
}

// goweaveWriteAll writes n bytes at p to the trace file, retrying short writes.
func goweaveWriteAll(p uintptr, n uint64) {
	for n > 0 && !goweaveWriteErr {
		k := n
		if k > 1<<30 {
			k = 1 << 30
		}
		w := write1(uintptr(goweaveFD), unsafe.Pointer(p), int32(k))
		if w == -_EINTR || w == -_EAGAIN {
			continue
		}
		if w <= 0 {
			goweaveWriteErr = true
			return
		}
		p += uintptr(w)
		n -= uint64(w)
	}
}
