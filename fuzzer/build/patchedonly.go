package build

import (
	"context"
	"os"
	"strings"
)

// patchedOnly tells a package whose tests fail to build only under goweave's runtime from one
// that does not compile at all. goweave's sync types carry an id (runtimepatch's sitetable:
// an 8-byte field in sync.Mutex, RWMutex, WaitGroup, Once and Cond), so code whose constants
// depend on their size (cache-line padding, `pad [64 - unsafe.Sizeof(x{})]byte`, as in
// puzpuzpuz/xsync) no longer compiles, and the compiler's message blames the module. When
// the tests build with the same toolchain and flags without the overlay, it returns a note saying the
// failure is goweave's and what to do; otherwise "".
func patchedOnly(ctx context.Context, p testPackage, opts Options, output string) string {
	// The same flags as the failed build, -vet included: a vet failure is the module's.
	args := []string{"test", "-c", "-o", os.DevNull}
	if opts.Race {
		args = append(args, "-race")
	}
	if opts.Vet != "" {
		args = append(args, "-vet="+opts.Vet)
	}
	cmd := opts.Overlay.Command(ctx, append(args, p.ImportPath)...)
	cmd.Dir = p.Dir
	if cmd.Run() != nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("goweave: these tests build with plain go (the same toolchain without goweave's patched runtime) but not under it: the failure is goweave's, not your module's.\n")
	if sizeDependent(output) {
		b.WriteString("goweave: its runtime adds an 8-byte id to sync.Mutex, RWMutex, WaitGroup, Once and Cond (a sync.Mutex is 16 bytes, not 8), and the code above computes a constant from unsafe.Sizeof (or Offsetof) of a type that holds one, such as padding to a cache line, which no longer fits.\n")
	}
	b.WriteString("goweave: leave this package out of the patterns to fuzz the others (they are unaffected).\n")
	return b.String()
}

// sizeDependent reports whether a compiler's output names a constant computed from the size,
// offset or alignment of a type.
func sizeDependent(output string) bool {
	for _, s := range []string{"unsafe.Sizeof", "unsafe.Offsetof", "unsafe.Alignof"} {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}
