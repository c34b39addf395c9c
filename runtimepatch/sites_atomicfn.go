package runtimepatch

import (
	"fmt"
	"strings"
)

// The function forms of sync/atomic (atomic.AddInt64(&n, 1), LoadInt32, StorePointer, ...).
// Without the race detector the compiler replaces calls to them by machine instructions
// (cmd/compile/internal/ssagen/intrinsics.go), except StorePointer, SwapPointer and
// CompareAndSwapPointer, which are calls into the runtime (they need a write barrier). With
// -race it does not: each call is a call to an assembly function of the runtime
// (runtime/race_amd64.s, race_arm64.s: TEXT sync∕atomic·AddInt64 ...) that tells the race
// detector about the access.
//
// The overlay gives each function a Go body (doc.go, doc_64.go: one line each) that tells
// goweave and calls the original implementation, renamed goweaveNAME wherever it is
// defined or linked to: the race assembly and its ABI-wrapper linknames (runtime/race.go),
// the non-race assembly (sync/atomic/asm.s) and the runtime's pointer functions
// (runtime/atomic_pointer.go). _patch/sync/atomic/zz_goweave_fn.go declares the renamed
// functions. The compiler still replaces calls by instructions without -race, so there
// goweave sees only the three pointer functions (and calls through a func value); with
// -race it sees every call.
//
// The body's hooks (_patch/runtime/zz_goweave_atomicfn.go) record a Load after it read and
// the others before they write, like the typed values' methods, and only when the calling
// frame (after inlining) is the module under test, so a typed value's method, which calls
// the function form, is recorded once. Under -race they also enter a race-detector frame for
// the caller, so a race report on the access still shows the user's line (the access is
// made from the Go body, one frame down).

// atomicFn is one function of sync/atomic.
type atomicFn struct {
	name   string // "AddInt64"
	params string // "addr *int64, delta int64"
	result string // "new int64", or "" when there is none
	kind   string // the hook's event kind constant in sync/atomic
}

func (f atomicFn) decl() string {
	d := "func " + f.name + "(" + f.params + ")"
	if f.result != "" {
		d += " (" + f.result + ")"
	}
	return d
}

// body is the one-line Go body of f.
func (f atomicFn) body() string {
	var args []string
	for _, p := range strings.Split(f.params, ",") {
		args = append(args, strings.Fields(p)[0])
	}
	call := "goweave" + f.name + "(" + strings.Join(args, ", ") + ")"
	if f.result != "" {
		call = strings.Fields(f.result)[0] + " = " + call
	}
	return fmt.Sprintf("{ goweavePC := sys.GetCallerPC(); goweaveFnPre(%[1]s, unsafe.Pointer(addr), goweavePC); %[2]s; goweaveFnPost(%[1]s, unsafe.Pointer(addr), goweavePC); return }", f.kind, call)
}

// atomicFns are the functions of sync/atomic, by the file declaring them (the same text from
// go1.25.0 to go1.27.4).
var atomicFns = map[string][]atomicFn{
	"sync/atomic/doc.go": append(append(append(append(append(
		intFns("Swap", "new", "old", "goweaveKAtomicRMW", "Int32", "Uint32", "Uintptr"),
		atomicFn{"SwapPointer", "addr *unsafe.Pointer, new unsafe.Pointer", "old unsafe.Pointer", "goweaveKAtomicRMW"},
		atomicFn{"CompareAndSwapInt32", "addr *int32, old, new int32", "swapped bool", "goweaveKAtomicRMW"},
		atomicFn{"CompareAndSwapUint32", "addr *uint32, old, new uint32", "swapped bool", "goweaveKAtomicRMW"},
		atomicFn{"CompareAndSwapUintptr", "addr *uintptr, old, new uintptr", "swapped bool", "goweaveKAtomicRMW"},
		atomicFn{"CompareAndSwapPointer", "addr *unsafe.Pointer, old, new unsafe.Pointer", "swapped bool", "goweaveKAtomicRMW"}),
		append(append(intFns("Add", "delta", "new", "goweaveKAtomicRMW", "Int32", "Uint32", "Uintptr"),
			intFns("And", "mask", "old", "goweaveKAtomicRMW", "Int32", "Uint32", "Uintptr")...),
			intFns("Or", "mask", "old", "goweaveKAtomicRMW", "Int32", "Uint32", "Uintptr")...)...),
		loadFns("Int32", "Uint32", "Uintptr")...),
		atomicFn{"LoadPointer", "addr *unsafe.Pointer", "val unsafe.Pointer", "goweaveKAtomicLoad"}),
		append(storeFns("Int32", "Uint32", "Uintptr"),
			atomicFn{"StorePointer", "addr *unsafe.Pointer, val unsafe.Pointer", "", "goweaveKAtomicStore"})...),
	"sync/atomic/doc_64.go": append(append(append(append(append(append(
		intFns("Swap", "new", "old", "goweaveKAtomicRMW", "Int64", "Uint64"),
		atomicFn{"CompareAndSwapInt64", "addr *int64, old, new int64", "swapped bool", "goweaveKAtomicRMW"},
		atomicFn{"CompareAndSwapUint64", "addr *uint64, old, new uint64", "swapped bool", "goweaveKAtomicRMW"}),
		intFns("Add", "delta", "new", "goweaveKAtomicRMW", "Int64", "Uint64")...),
		intFns("And", "mask", "old", "goweaveKAtomicRMW", "Int64", "Uint64")...),
		intFns("Or", "mask", "old", "goweaveKAtomicRMW", "Int64", "Uint64")...),
		loadFns("Int64", "Uint64")...),
		storeFns("Int64", "Uint64")...),
}

// intFns are op's functions on types, each taking addr and arg and returning result.
func intFns(op, arg, result, kind string, types ...string) []atomicFn {
	var fns []atomicFn
	for _, t := range types {
		gt := strings.ToLower(t[:1]) + t[1:]
		fns = append(fns, atomicFn{op + t, fmt.Sprintf("addr *%s, %s %s", gt, arg, gt), result + " " + gt, kind})
	}
	return fns
}

func loadFns(types ...string) []atomicFn {
	var fns []atomicFn
	for _, t := range types {
		gt := strings.ToLower(t[:1]) + t[1:]
		fns = append(fns, atomicFn{"Load" + t, "addr *" + gt, "val " + gt, "goweaveKAtomicLoad"})
	}
	return fns
}

func storeFns(types ...string) []atomicFn {
	var fns []atomicFn
	for _, t := range types {
		gt := strings.ToLower(t[:1]) + t[1:]
		fns = append(fns, atomicFn{"Store" + t, "addr *" + gt + ", val " + gt, "", "goweaveKAtomicStore"})
	}
	return fns
}

// atomicFnNames are the names of sync/atomic's functions.
func atomicFnNames() []string {
	var names []string
	for _, file := range []string{"sync/atomic/doc.go", "sync/atomic/doc_64.go"} {
		for _, f := range atomicFns[file] {
			names = append(names, f.name)
		}
	}
	return names
}

// atomicFnSiteTable gives each function of sync/atomic its Go body and renames the
// implementations it calls.
var atomicFnSiteTable = func() []site {
	sites := []site{
		{"sync/atomic/doc.go", "import", "", "\t\"unsafe\"", "\t\"unsafe\"; \"internal/runtime/sys\""},
		{"sync/atomic/doc_64.go", "package", "", "package atomic", "package atomic; import (\"unsafe\"; \"internal/runtime/sys\")"},
		{"runtime/race_amd64.s", renameDecl, "", "sync∕atomic·NAME(SB)", "sync∕atomic·goweaveNAME(SB)"},
		{"runtime/race_arm64.s", renameDecl, "", "sync∕atomic·NAME(SB)", "sync∕atomic·goweaveNAME(SB)"},
		{"runtime/race.go", renameDecl, "", " sync/atomic.NAME", " sync/atomic.goweaveNAME"},
		{"runtime/atomic_pointer.go", renameDecl, "", " sync/atomic.NAME", " sync/atomic.goweaveNAME"},
		{"sync/atomic/asm.s", renameDecl, "", "TEXT ·NAME(SB)", "TEXT ·goweaveNAME(SB)"},
	}
	for _, file := range []string{"sync/atomic/doc.go", "sync/atomic/doc_64.go"} {
		for _, f := range atomicFns[file] {
			sites = append(sites, site{file, f.name, "", f.decl(), f.decl() + " " + f.body()})
			if !strings.HasSuffix(f.name, "Pointer") {
				// A function with a body must not be marked noescape: the compiler sees that it is.
				sites = append(sites, site{file, "doc " + f.name, "", "//go:noescape", "//"})
			}
		}
	}
	return sites
}()
