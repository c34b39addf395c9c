package campaign

import (
	"fmt"
	"os"
	"os/exec"
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

	pruneCampaigns(dir, 2, 24*time.Hour, 1<<40, now, nil)
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
	pruneCampaigns(dir2, 1, 24*time.Hour, 1<<40, now, nil)
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
	pruneCampaigns(dir3, 0, 24*time.Hour, 1<<40, now, map[string]bool{older: true})
	if entries, _ := os.ReadDir(dir3); len(entries) != 1 || entries[0].Name() != older {
		t.Errorf("left %v, want only the saved campaign %s", entries, older)
	}
}

// Past the size bound the oldest campaigns go, however young, unless their goweave process
// still runs or a saved state pins them.
func TestPruneCampaignsBySize(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	dead := deadPid(t)
	mk := func(ago time.Duration, pid int) string {
		name := fmt.Sprintf("%s-%d-1", now.Add(-ago).Format(campaignDirTime), pid)
		os.MkdirAll(filepath.Join(dir, name, "traces"), 0o755)
		os.WriteFile(filepath.Join(dir, name, "traces", "run.trace"), make([]byte, 1000), 0o644)
		return name
	}
	pinned, running := mk(5*time.Minute, dead), mk(4*time.Minute, os.Getpid())
	oldest, old, newer, newest := mk(3*time.Minute, dead), mk(2*time.Minute, dead), mk(time.Minute, dead), mk(0, dead)
	pruneCampaigns(dir, 20, 24*time.Hour, 3500, now, map[string]bool{pinned: true})
	left := campaignDirs(dir)
	if want := []string{pinned, running, newest}; !slices.Equal(left, want) {
		t.Errorf("left %v\nwant %v (gone: %v %v %v)", left, want, oldest, old, newer)
	}
}

// goweave clean removes the campaigns that are not running and the saved states.
func TestClean(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	done := fmt.Sprintf("%s-%d-1", now.Format(campaignDirTime), deadPid(t))
	running := fmt.Sprintf("%s-%d-2", now.Format(campaignDirTime), os.Getpid())
	for _, name := range []string{done, running, "state"} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
	}
	os.WriteFile(filepath.Join(dir, done, "report.json"), make([]byte, 100), 0o644)
	os.WriteFile(filepath.Join(dir, "state", "a.json"), make([]byte, 50), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	c, err := Clean(dir, "")
	if err != nil || c.Campaigns != 1 || c.InUse != 1 || c.Bytes != 150 {
		t.Fatalf("Clean = %+v, %v", c, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{running, "notes.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
