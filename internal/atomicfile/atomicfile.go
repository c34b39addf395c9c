// Package atomicfile writes files that readers see whole or not at all: a campaign's saved
// state, its findings index and the language server's last findings are read by other
// processes (the next campaign, another editor) while they are rewritten.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to a new file beside path (readable by all, as os.WriteFile's 0o644
// would leave it) and renames it over path. On an error nothing is left behind.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
