// Copyright goweave authors. Added to package runtime by the goweave overlay.

// goweave's view through libraries (docs/stdlib-hb.md). An operation whose
// caller is a library that synchronises on the user's behalf (the standard
// packages whose documentation promises an ordering, and every dependency
// outside GOROOT) is recorded with the internal flag at the innermost frame
// of the module under test on its goroutine's stack, or, on a goroutine
// that has no such frame (the goroutine errgroup.Go starts, after the
// user's function returned), at the user position its spawn was attributed
// to. The rest of the standard library (testing, fmt, log, os, ...) is not
// recorded: its locks are implementation details that would order user
// operations the user did not order.

package runtime

// PC cache values beside goweaveNotUser and goweaveWrapper. Positions are
// below goweaveFirstClass.
const (
	goweaveLib        = ^uint32(0) - 2      // recorded library code: attribute to the innermost user frame
	goweaveOpaque     = ^uint32(0) - 3      // standard library code whose synchronisation is not recorded
	goweaveFirstClass = goweaveReflectEntry // zz_goweave_reflect.go
)

// goweaveLibFrames bounds the stack walk for the innermost user frame.
const goweaveLibFrames = 48

// goweaveLibClass classifies a frame that is not user code: goweaveLib when
// an operation it calls is recorded; goweaveNotUser when it is transparent
// (the runtime, sync and internal packages: the primitives' own frames,
// which the walk for the user frame passes); goweaveOpaque for the rest of
// the standard library, whose use of a recorded library (os.Getenv's
// sync.OnceFunc, testing's context) is its own business. fn is the frame's
// function.
func goweaveLibClass(file, fn string) uint32 {
	switch {
	case goweaveIsLibFile(file, fn):
		return goweaveLib
	case goweaveTransparent(file):
		return goweaveNotUser
	}
	return goweaveOpaque
}

func goweaveTransparent(file string) bool {
	std, ok := goweaveStdPath(file)
	// reflect's channel operations are primitives like the runtime's
	// (zz_goweave_reflect.go), and its Call is a call.
	return !ok || goweaveHasPrefix(std, "runtime/") || goweaveHasPrefix(std, "sync/") || goweaveHasPrefix(std, "internal/") ||
		goweaveHasPrefix(std, "reflect/")
}

// goweaveIsLibFile reports whether an operation called from file (not
// user code) is recorded. fn is the calling function's name.
func goweaveIsLibFile(file, fn string) bool {
	std, ok := goweaveStdPath(file)
	if !ok {
		// Outside GOROOT: a dependency of the module under test.
		return true
	}
	switch {
	case goweaveHasPrefix(std, "context/"), goweaveHasPrefix(std, "io/"):
		return true
	case goweaveHasPrefix(std, "time/"):
		// The runtime's send on a timer channel is not an operation of
		// any goroutine of the program.
		return fn != "time.sendTime"
	case std == "sync/cond.go", std == "sync/waitgroup.go", std == "sync/oncefunc.go":
		// The Cond's Locker, WaitGroup.Go's goroutine, OnceFunc's Once.
		// The Mutex inside RWMutex and Once is covered by their own
		// records.
		return true
	}
	return false
}

// goweaveStdPath returns file's path relative to GOROOT/src when file is in
// the standard library. -trimpath builds name standard files by import
// path ("context/context.go") and module files with an "@version".
func goweaveStdPath(file string) (string, bool) {
	if goweaveGOROOT != "" && goweaveHasPrefix(file, goweaveGOROOT) {
		return file[len(goweaveGOROOT):], true
	}
	if len(file) > 0 && file[0] == '/' {
		return "", false
	}
	for i := 0; i < len(file) && file[i] != '/'; i++ {
		if file[i] == '.' || file[i] == '@' {
			return "", false // a module path: example.com/..., golang.org/x/sync@v0.24.0/...
		}
	}
	return file, true
}

// goweaveLibPos returns the position a recorded library operation is
// attributed to: the innermost user frame of the current user goroutine
// (from the system stack: of m.curg), else the position its spawn was
// attributed to; 0 when there is none, or when the library was called by
// standard-library code that is not recorded (the walk meets it first).
func goweaveLibPos() uint32 {
	gp := getg()
	cur := gp.m.curg
	if cur == nil {
		return 0
	}
	var pcs [goweaveLibFrames]uintptr
	var n int
	if gp == cur {
		n = callers(3, pcs[:])
	} else {
		n = gcallers(cur, 0, pcs[:])
	}
	for _, pc := range pcs[:n] {
		switch v := goweaveLookup(pc); v {
		case goweaveNotUser, goweaveWrapper, goweaveLib, goweaveReflectEntry:
		case goweaveOpaque:
			return 0
		default:
			return v
		}
	}
	return cur.goweave.spawnPos
}
