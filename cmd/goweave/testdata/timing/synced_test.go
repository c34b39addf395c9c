package timing

import (
	"testing"
	"time"
)

// Sleeps for the worker, then synchronises with it anyway: the failure (Sync answering with
// a key still queued, whichever way the worker's select went) is the Journal's bug, whatever
// the clock; the sleep plays no part in what the test sees.
func TestSyncsAfterSleep(t *testing.T) {
	j := NewJournal()
	defer j.Close()
	j.Add("a")
	time.Sleep(time.Millisecond)
	j.Sync()
	if !j.Consistent() {
		t.Errorf("a key added before Sync is not appended after it")
	}
}

// Sleeps for the task to run, then stops it and waits for its answer: the answer comes after
// the task's choice, but the stop the test sent after its sleep is what the late task saw.
// A timing-dependent failure.
func TestStopsAfterSleep(t *testing.T) {
	task := StartTask(func() int { return 1 })
	time.Sleep(time.Millisecond)
	if got := task.Stop(); got != 1 {
		t.Errorf("Stop() = %d after the task's time, want 1", got)
	}
}
