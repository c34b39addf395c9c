package build

import (
	"context"
	"os"
	"strings"
)

// patchedOnly tells a package whose tests fail to build only under goweave's runtime from one
// that does not compile at all: the compiler's message would blame the module. goweave's patch
// keeps every exported type of the standard library at its stock size and layout (the ids of
// sync objects live outside them: runtimepatch's zz_goweave_objid.go), so this should not
// happen; if it does, it is a goweave bug. When the tests build with the same toolchain and flags
// without the overlay, it returns a note saying the failure is goweave's and what to do;
// otherwise "".
func patchedOnly(ctx context.Context, p testPackage, opts Options, _ string) string {
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
	b.WriteString("goweave: leave this package out of the patterns to fuzz the others (they are unaffected).\n")
	return b.String()
}
