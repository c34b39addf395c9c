package failing

import "testing"

// notPanics fails t when f panics, as testify's require.NotPanics does.
func notPanics(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("should not panic: %v", r)
		}
	}()
	f()
}

// TestEnqueueAfterUnref fails in every run: the send on the closed channel panics inside
// enqueue's select, and the test recovers it.
func TestEnqueueAfterUnref(t *testing.T) {
	q := newQueue()
	q.unref()
	notPanics(t, func() { q.enqueue(1) })
}
