package lsp

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Two servers writing one finding's page while a client reads it: every read sees a whole
// page, never the empty or partial file os.WriteFile leaves between its truncation and its
// write (the Neovim e2e test read an empty page once, beside another editor's test).
func TestTimelinePageWriteIsAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "GW0.html")
	page := bytes.Repeat([]byte("<html>send-on-closed</html>\n"), 1<<14)
	if err := writeFileAtomic(path, page); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := writeFileAtomic(path, page); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 300 {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(page) {
			t.Fatalf("read %d bytes of a %d-byte page", len(got), len(page))
		}
	}
	close(stop)
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".GW0.html.*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
}
