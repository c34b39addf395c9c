package campaign

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneCampaigns(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	mk := func(name string) {
		if err := os.MkdirAll(filepath.Join(dir, name, "traces"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, ago := range []time.Duration{72 * time.Hour, 48 * time.Hour, 30 * time.Hour, 2 * time.Hour, time.Minute} {
		mk(now.Add(-ago).Format(campaignDirTime) + "-42-1")
	}
	mk("my-notes") // not a campaign: never touched
	os.WriteFile(filepath.Join(dir, "20200101T000000.000-1-1"), nil, 0o644)

	pruneCampaigns(dir, 2, 24*time.Hour, now, nil)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	// Beyond the newest two, the three older than a day go; a file with a campaign's name
	// and the foreign directory stay.
	want := []string{
		"20200101T000000.000-1-1",
		now.Add(-2*time.Hour).Format(campaignDirTime) + "-42-1",
		now.Add(-time.Minute).Format(campaignDirTime) + "-42-1",
		"my-notes",
	}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v\nwant %v", left, want)
	}

	// Young campaigns are kept even beyond the count: they may still be running.
	dir2 := t.TempDir()
	dir = dir2
	for _, ago := range []time.Duration{3 * time.Hour, 2 * time.Hour, time.Hour} {
		mk(now.Add(-ago).Format(campaignDirTime) + "-7-3")
	}
	pruneCampaigns(dir2, 1, 24*time.Hour, now, nil)
	if entries, _ := os.ReadDir(dir2); len(entries) != 3 {
		t.Errorf("%d campaigns left, want all 3 (younger than a day)", len(entries))
	}

	// A campaign whose findings a saved test state carries is kept, however old.
	dir3 := t.TempDir()
	dir = dir3
	old := now.Add(-72*time.Hour).Format(campaignDirTime) + "-9-9"
	older := now.Add(-96*time.Hour).Format(campaignDirTime) + "-9-9"
	mk(old)
	mk(older)
	pruneCampaigns(dir3, 0, 24*time.Hour, now, map[string]bool{older: true})
	if entries, _ := os.ReadDir(dir3); len(entries) != 1 || entries[0].Name() != older {
		t.Errorf("left %v, want only the saved campaign %s", entries, older)
	}
}
