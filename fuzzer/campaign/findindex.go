package campaign

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goweave/goweave/internal/atomicfile"
)

// The finding index lets `goweave replay ID` find a finding's recipe from any directory,
// whatever output directory its campaign used: each campaign appends an "ID<TAB>recipe
// path" line per recipe it wrote to findings.idx in goweave's user cache directory, and
// FindRecipe takes the newest (last) line of an ID whose recipe still exists. Appends are
// one write each (O_APPEND), so concurrent campaigns do not interleave lines. Past
// maxIndexBytes the file is compacted to the lines whose recipes still exist, the newest
// line per ID.

var maxIndexBytes int64 = 1 << 20 // a variable for tests

// indexPath is the index file; a variable for tests.
var indexPath = func() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "goweave", "findings.idx"), nil
}

// indexRecipes adds the recipes (ID -> path) to the index.
func indexRecipes(recipes map[string]string) error {
	if len(recipes) == 0 {
		return nil
	}
	path, err := indexPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	for id, recipe := range recipes {
		fmt.Fprintf(&b, "%s\t%s\n", id, recipe)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	st, statErr := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && statErr == nil && st.Size() > maxIndexBytes {
		err = compactIndex(path)
	}
	return err
}

// lookupIndex returns the newest indexed recipe of id that still exists, of the module
// that holds dir when it has one (newestOwn).
func lookupIndex(id, dir string) (string, bool) {
	path, err := indexPath()
	if err != nil {
		return "", false
	}
	lines, err := readIndex(path)
	if err != nil {
		return "", false
	}
	var recipes []string // newest first
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i][0] == id {
			if _, err := os.Stat(lines[i][1]); err == nil {
				recipes = append(recipes, lines[i][1])
			}
		}
	}
	if len(recipes) == 0 {
		return "", false
	}
	return newestOwn(recipes, dir), true
}

func readIndex(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id, recipe, ok := strings.Cut(sc.Text(), "\t"); ok && findingIDPattern.MatchString(id) && filepath.IsAbs(recipe) {
			lines = append(lines, [2]string{id, recipe})
		}
	}
	return lines, sc.Err()
}

// compactIndex rewrites the index with the newest line of each ID whose recipe exists.
func compactIndex(path string) error {
	lines, err := readIndex(path)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var keep []string
	for i := len(lines) - 1; i >= 0; i-- {
		id, recipe := lines[i][0], lines[i][1]
		if seen[id] {
			continue
		}
		seen[id] = true
		if _, err := os.Stat(recipe); err == nil {
			keep = append(keep, id+"\t"+recipe+"\n")
		}
	}
	var b strings.Builder
	for i := len(keep) - 1; i >= 0; i-- {
		b.WriteString(keep[i])
	}
	return atomicfile.Write(path, []byte(b.String()))
}
