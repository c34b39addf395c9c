package wants

import (
	"bufio"
	"os"
	"regexp"
	"strings"
)

// Kernel is one row of the acceptance corpus's table: which kinds a kernel expects and
// how each can be found.
type Kernel struct {
	Name string
	// FoundBy maps each expected kind to the corpus's "found by" text for it, e.g.
	// "predicted", "actual (fails)", "select fuzzing".
	FoundBy map[string]string
}

// InOneRun reports whether kind is expected from the analysis of one plain recorded run
// (the corpus marks those "actual" or "predicted").
func (k Kernel) InOneRun(kind string) bool {
	how := k.FoundBy[kind]
	return strings.HasPrefix(how, "actual") || strings.HasPrefix(how, "predicted")
}

var kindAt = regexp.MustCompile(`([a-z-]+) @\d+`)

// ReadCorpusTable parses the kernel table of the corpus README.
func ReadCorpusTable(readme string) (map[string]Kernel, error) {
	f, err := os.Open(readme)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kernels := map[string]Kernel{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 6 {
			continue
		}
		name := strings.TrimSpace(cells[1])
		if name == "" || name == "kernel" || strings.HasPrefix(name, "-") {
			continue
		}
		k := Kernel{Name: name, FoundBy: map[string]string{}}
		foundBy := strings.TrimSpace(cells[3])
		for _, m := range kindAt.FindAllStringSubmatch(cells[2], -1) {
			k.FoundBy[m[1]] = foundBy
		}
		// "cyclic-deadlock: predicted; deadlock: order fuzzing" gives each kind its own way.
		for _, part := range strings.Split(foundBy, ";") {
			kind, how, ok := strings.Cut(strings.TrimSpace(part), ": ")
			if _, known := k.FoundBy[kind]; ok && known {
				k.FoundBy[kind] = strings.TrimSpace(how)
			}
		}
		kernels[name] = k
	}
	return kernels, sc.Err()
}
