package build

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// InDir makes cmd run in dir as the go command and go test do: with PWD set to dir.
//
// Go's os.Getwd trusts $PWD only when it names the current directory; otherwise it asks the
// kernel, which answers with symbolic links resolved. os/exec sets PWD itself when Dir is set
// and Env is nil, but a command with an environment of its own (the overlay's go command, a
// test run) inherits goweave's PWD, which names another directory. In a module reached
// through a symbolic link the compiler then records the resolved file names while go list
// (and GOWEAVE_MODULE) has the linked ones, and the runtime records none of the module's
// operations: every run passed with 0 bugs.
func InDir(cmd *exec.Cmd, dir string) {
	cmd.Dir = dir
	if cmd.Env == nil || dir == "" {
		return
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	env := make([]string, 0, len(cmd.Env)+1)
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "PWD=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PWD="+abs)
}
