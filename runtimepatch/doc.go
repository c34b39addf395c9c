// Package runtimepatch owns goweave's patched Go runtime: it generates an
// -overlay for the installed toolchain (go1.26.x) that makes any binary built
// with it record every concurrency operation of user code into a trace file
// (format: analysis/trace/FORMAT.md) and write that trace on every exit path.
//
// The patch is made of files added to packages runtime and sync (_patch/),
// which hold all the logic, and of one-line hook calls spliced onto existing
// lines of GOROOT files (edits_go126.go), so patched files keep their line
// numbers. The recording is driven by environment variables read by the
// patched runtime at start-up: EnvTrace and EnvModule.
//
// runtimepatch knows nothing about fuzzing or analysis; it only builds the
// overlay. Reading traces is analysis/trace's job.
package runtimepatch
