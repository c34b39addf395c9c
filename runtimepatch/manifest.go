package runtimepatch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The overlay's manifest lists every file of a generated overlay with its
// SHA-256, so that an overlay damaged after generation (a file removed or
// edited in the cache) is noticed before a build uses it, and regenerated:
// a damaged overlay otherwise fails every later build of the user's tests.

const manifestName = "MANIFEST"

// writeManifest records every file under dir in dir/MANIFEST, one
// "<sha256>  <slash path>" line per file.
func writeManifest(dir string) error {
	var buf bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&buf, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("runtimepatch: writing the overlay's manifest: %w", err)
	}
	return writeInto(dir, manifestName, buf.Bytes())
}

// verifyOverlay checks the overlay in dir against its manifest: every listed
// file present with its recorded content, overlay.json among them. The error
// names the first file that differs.
func verifyOverlay(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return err
	}
	sawOverlay := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sum, rel, ok := strings.Cut(sc.Text(), "  ")
		if !ok || rel == "" || strings.Contains(rel, "..") {
			return fmt.Errorf("%s: malformed line %q", manifestName, sc.Text())
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if h := sha256.Sum256(got); hex.EncodeToString(h[:]) != sum {
			return fmt.Errorf("%s: content differs from the generated file", rel)
		}
		sawOverlay = sawOverlay || rel == "overlay.json"
	}
	if !sawOverlay {
		return fmt.Errorf("%s does not list overlay.json", manifestName)
	}
	return nil
}
