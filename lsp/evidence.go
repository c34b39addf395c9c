package lsp

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/goweave/goweave/analysis"
)

// A finding's confidence never goes down while its evidence stands: a bug that happened
// (actual) or that a replay reproduced (confirmed) stays so until the code it was seen in
// changes, even when a later campaign of the same test only predicts it or does not meet
// it at all. The evidence is the source the campaign ran: the Go files of the package and
// the files the finding's positions are in, as they are on disk; its hash is taken when the
// finding is stored and compared when a later campaign's results replace it.

// evidenceOf hashes the Go files of dir and the files of positions (names and contents).
func evidenceOf(dir string, positions []analysis.Position) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, p := range positions {
		files = append(files, p.File)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	h := sha256.New()
	for _, f := range files {
		io.WriteString(h, f)
		h.Write([]byte{0})
		if fd, err := os.Open(f); err == nil {
			_, _ = io.Copy(h, fd)
			fd.Close()
		} else {
			io.WriteString(h, "(missing)")
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// confidenceRank orders confidences by their evidence: predicted < actual < confirmed.
func confidenceRank(c analysis.Confidence) int {
	switch c {
	case analysis.Confirmed:
		return 2
	case analysis.Actual:
		return 1
	}
	return 0
}
