package campaign

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"
)

// Each campaign writes into its own directory under OutDir (so that concurrent campaigns,
// say the language server's and a terminal's, never share files) and keeps the traces of its
// findings there. pruneCampaigns bounds the space this takes: it removes campaign
// directories beyond the newest keep that are older than age (an older campaign may still be
// running, or an editor may still show its findings), except those in saved: the campaigns
// whose findings a saved test state carries (state.go).

var campaignDirName = regexp.MustCompile(`^\d{8}T\d{6}\.\d{3}-\d+-\d+$`)

const (
	keepCampaigns   = 20
	campaignMaxAge  = 24 * time.Hour
	campaignDirTime = "20060102T150405.000"
)

func pruneCampaigns(outDir string, keep int, age time.Duration, now time.Time, saved map[string]bool) {
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && campaignDirName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // timestamps first: oldest first
	for _, name := range names[:max(0, len(names)-keep)] {
		started, err := time.Parse(campaignDirTime, name[:len(campaignDirTime)])
		if err != nil || now.Sub(started) < age || saved[name] {
			continue
		}
		os.RemoveAll(filepath.Join(outDir, name))
	}
}
