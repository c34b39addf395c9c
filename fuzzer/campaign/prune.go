package campaign

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Each campaign writes into its own directory under OutDir (so that concurrent campaigns,
// say the language server's and a terminal's, never share files) and keeps the traces of its
// findings there. pruneCampaigns bounds the space this takes:
//
//   - by count and age: it removes campaign directories beyond the newest keep that are
//     older than age (an older campaign may still be running, or an editor may still show
//     its findings);
//   - by size: while all campaign directories together take more than maxBytes, it removes
//     the oldest whose goweave process has ended (the directory name carries its pid).
//
// Never removed: the campaigns in saved, whose findings a saved test state carries
// (state.go). Clean (goweave clean) removes everything that is not in use.

var campaignDirName = regexp.MustCompile(`^\d{8}T\d{6}\.\d{3}-(\d+)-\d+$`)

const (
	keepCampaigns   = 20
	campaignMaxAge  = 24 * time.Hour
	campaignDirTime = "20060102T150405.000"
	// campaignsMaxBytes is the default bound of all campaign directories of one OutDir
	// together (README: Output directory).
	campaignsMaxBytes = 1 << 30
)

func pruneCampaigns(outDir string, keep int, age time.Duration, maxBytes int64, now time.Time, saved map[string]bool) {
	names := campaignDirs(outDir) // oldest first
	removed := map[string]bool{}
	for _, name := range names[:max(0, len(names)-keep)] {
		started, err := time.Parse(campaignDirTime, name[:len(campaignDirTime)])
		if err != nil || now.Sub(started) < age || saved[name] {
			continue
		}
		if os.RemoveAll(filepath.Join(outDir, name)) == nil {
			removed[name] = true
		}
	}
	sizes := map[string]int64{}
	var total int64
	for _, name := range names {
		if !removed[name] {
			sizes[name] = dirSize(filepath.Join(outDir, name))
			total += sizes[name]
		}
	}
	for _, name := range names {
		if total <= maxBytes {
			break
		}
		if removed[name] || saved[name] || ownerAlive(name) {
			continue
		}
		if os.RemoveAll(filepath.Join(outDir, name)) == nil {
			total -= sizes[name]
		}
	}
}

// campaignDirs lists the campaign directories under outDir, oldest first.
func campaignDirs(outDir string) []string {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && campaignDirName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // timestamps first: oldest first
	return names
}

// dirSize is the size of the files below dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ownerAlive reports whether the goweave process that made campaign directory name may
// still be running it (conservatively true where that cannot be checked).
func ownerAlive(name string) bool {
	m := campaignDirName.FindStringSubmatch(name)
	pid, err := strconv.Atoi(m[1])
	return err != nil || pid == os.Getpid() || processAlive(pid)
}

// Cleaned says what Clean removed.
type Cleaned struct {
	Campaigns int   // campaign directories removed
	Bytes     int64 // their size, with the saved states'
	InUse     int   // campaign directories left because their goweave process still runs
}

// Clean removes what campaigns left in outDir ("" means DefaultOutDir(dir)): every campaign
// directory whose goweave process has ended (traces, recipes, kept test binaries) and the
// saved test states, so that the next campaign starts over. Files that are not goweave's are
// left alone.
func Clean(outDir, dir string) (Cleaned, error) {
	var c Cleaned
	if outDir == "" {
		var err error
		if outDir, err = DefaultOutDir(dir); err != nil {
			return c, err
		}
	}
	var errs []error
	for _, name := range campaignDirs(outDir) {
		if ownerAlive(name) {
			c.InUse++
			continue
		}
		size := dirSize(filepath.Join(outDir, name))
		if err := os.RemoveAll(filepath.Join(outDir, name)); err != nil {
			errs = append(errs, err)
			continue
		}
		c.Campaigns++
		c.Bytes += size
	}
	states, _ := filepath.Glob(filepath.Join(outDir, "state", "*.json"))
	for _, f := range states {
		if fi, err := os.Stat(f); err == nil && os.Remove(f) == nil {
			c.Bytes += fi.Size()
		}
	}
	os.Remove(filepath.Join(outDir, "state")) // only when empty
	if len(errs) > 0 {
		return c, errors.Join(errs...)
	}
	return c, nil
}
