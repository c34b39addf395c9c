package crawler

import "testing"

func TestFetchAll(t *testing.T) {
	pages := map[string]string{"/a": "alpha", "/b": "bravo", "/c": "charlie"}
	if got := FetchAll([]string{"/a", "/b", "/c"}, Static(pages)); got > 17 {
		t.Errorf("total %d, want at most 17", got)
	}
}
