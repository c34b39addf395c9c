// Package runtimepatch owns goweave's patched Go runtime: it generates an
// -overlay for the toolchain the go command uses for the user's module
// (toolchain.go: GOTOOLCHAIN and go.mod's go/toolchain lines are honoured,
// downloaded toolchains included; go1.25-go1.27 on linux/amd64 and arm64:
// versions.go) that makes any binary built with it record every concurrency
// operation of user code into a trace file (format: analysis/trace/FORMAT.md)
// and write that trace on every exit path: os.Exit and return from main, an unrecovered
// panic, a fatal error (including the runtime's "all goroutines are asleep"
// deadlock), SIGQUIT and the other crash signals, and SIGTERM/SIGINT/SIGHUP.
// Only SIGKILL loses the trace.
//
// Use:
//
//	ov, err := runtimepatch.Prepare(ctx, moduleDir)
//	cmd := ov.Command(ctx, "test", "-c", "-o", "x.test", "-overlay="+ov.Path, "./pkg") // also -race, -cover, -trimpath
//	// GOWEAVE_TRACE=/tmp/run.gwt GOWEAVE_MODULE=/abs/module/root ./x.test -test.run=^TestX$ -test.timeout=0
//
// -test.timeout=0 matters: while the test timeout's timer is pending the
// runtime never reports a deadlock; enforce time limits from outside with
// SIGQUIT, which flushes the trace. GOWEAVE_MODULE must be the clean absolute
// module directory (the module path for -trimpath builds); operations whose
// position is not under it are not recorded, spawns and goroutine ends always
// are.
//
// The patch is made of files added to packages runtime, sync and testing (_patch/),
// which hold all the logic, and of one-line hook calls spliced onto existing
// lines of GOROOT files (sites_go126.go), each line found by its text inside a
// named function (sites.go), so patched files keep their line numbers. Every recorded channel, select and sync operation passes through
// one pre hook (goweaveBefore in _patch/runtime/zz_goweave_record.go) on its
// own goroutine before it takes a lock: there schedule control parks
// goroutines. No exported type changes: every sync type keeps the stock
// toolchain's size and layout, the ids of sync objects live in the runtime
// (_patch/runtime/zz_goweave_objid.go; TestSyncLayoutStock).
//
// Schedule control: with GOWEAVE_SCHEDULE=<file> (format:
// fuzzer/schedule/FORMAT.md) the recording run also follows a schedule:
// operations admitted in a given order (replay, GoPie), delays (flow) and
// select preferences (GFuzz), and reports the outcome in trace META
// (schedule.admitted, schedule.diverged, ...). A schedule that does not parse
// ends the process with exit status 2. Exact semantics: SCHEDULE.md.
//
// runtimepatch knows nothing about fuzzing or analysis; it only builds the
// overlay. Reading traces is analysis/trace's job.
package runtimepatch
