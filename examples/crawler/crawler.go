// Package crawler fetches pages concurrently.
package crawler

import (
	"strings"
	"sync"
)

// Fetcher returns the body of a page.
type Fetcher func(url string) string

// FetchAll fetches every url at once and returns the bodies' total length.
//
// BUG: wg.Add runs after the goroutine is started. A fetch that finishes first calls
// Done on a zero counter ("sync: negative WaitGroup counter"), and Wait may return
// before every fetch has finished.
func FetchAll(urls []string, fetch Fetcher) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for _, u := range urls {
		go func() {
			defer wg.Done() // want "negative-waitgroup"
			n := len(fetch(u))
			mu.Lock()
			total += n
			mu.Unlock()
		}()
		wg.Add(1) // related "negative-waitgroup"
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return total
}

// Static serves pages from a map.
func Static(pages map[string]string) Fetcher {
	return func(url string) string { return strings.Clone(pages[url]) }
}
