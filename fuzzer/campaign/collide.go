package campaign

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/goweave/goweave/fuzzer/run"
)

// go test never runs two processes of one package's test binary at once; a campaign does
// (-p). A test harness that takes a fixed resource per process (a server on a fixed port,
// as redigo's starts redis-server on :16379; a lock file) then fails in one of two
// processes, a failure of the campaign's parallelism, not of any schedule of the program.
// A failed run whose output names such a collision, while another process of the same
// package ran beside it, is not evidence: it is discarded and run again, and from then on
// the package's runs go one process at a time (Report.Warnings says so once). A failure
// that persists when runs are serial is reported as any other.

// collisionMarks are the output fragments that name a collision on a resource shared by
// processes. Kept small: each is an OS error a second process gets for what the first
// holds, not a test's own message.
var collisionMarks = []string{
	"address already in use",                // EADDRINUSE: a listener on a fixed port (Unix)
	"only one usage of each socket address", // WSAEADDRINUSE (Windows)
	"file exists",                           // EEXIST: a lock file made with O_EXCL, a fixed directory
	"resource temporarily unavailable",      // EAGAIN/EWOULDBLOCK: flock(LOCK_NB) held by the other
	"being used by another process",         // ERROR_SHARING_VIOLATION (Windows)
	// redis-server's last words when its port is taken ("bind: Address already in use"
	// comes lines before): a harness that reports the server's last line shows only this
	"failed listening on port",
}

// collision returns the output line of r that names a collision on a shared resource, or
// "" when r did not fail or its output names none.
func collision(r *run.Run) string {
	switch r.Status {
	case run.StatusFail, run.StatusPanic, run.StatusCrash:
	default:
		return ""
	}
	return collisionIn(r.Output + "\n" + r.Panic + "\n" + r.Fatal)
}

// collisionIn returns the first line of output that names a collision, or "".
func collisionIn(output string) string {
	for line := range strings.Lines(output) {
		lower := strings.ToLower(line)
		for _, m := range collisionMarks {
			if strings.Contains(lower, m) {
				return strings.TrimSpace(line)
			}
		}
	}
	return ""
}

// pkgRuns is what the campaign knows of one package's runs in flight.
type pkgRuns struct {
	inflight int
	started  int    // runs started so far: a later count says another started during a run
	serial   string // why its runs go one at a time; "": they may overlap
	// What overlap.go's rule knows: whether a run failed alone, why the runs go one at a
	// time until one does (""), the lone reruns of the runs it discarded, and counts for
	// the warning.
	loneFailed                        bool
	suspect                           string
	reruns                            []rerun
	discarded, notRerun, rerunsPassed int
	warned                            bool
}

func (c *campaign) pkg(t *testState) *pkgRuns {
	if c.pkgs == nil {
		c.pkgs = map[string]*pkgRuns{}
	}
	key := ""
	if t.bin != nil { // nil in tests of the dispatcher alone
		key = t.bin.Package
	}
	p := c.pkgs[key]
	if p == nil {
		p = &pkgRuns{}
		c.pkgs[key] = p
	}
	return p
}

// serialBlocked reports whether t must wait: its package's runs are serial and one is under
// way, or another test of the package has a lone rerun to go first (overlap.go).
func (c *campaign) serialBlocked(t *testState, now time.Time) bool {
	p := c.pkg(t)
	if (p.serial != "" || p.suspect != "") && p.inflight > 0 {
		return true
	}
	r := c.rerunHead(p, now)
	return r != nil && r.test != t
}

// startPkgRun notes that j starts: whether another process of its package runs now.
func (c *campaign) startPkgRun(j *job) {
	p := c.pkg(j.test)
	j.overlapped = p.inflight > 0
	p.inflight++
	p.started++
	j.pkgStarted = p.started
}

// endPkgRun notes that j ended and reports whether its run is not evidence: it failed
// while another process of its package ran, on a shared resource its output names (the
// package's runs go one at a time from then on, its request runs again) or before any run
// of the package failed alone (overlap.go).
func (c *campaign) endPkgRun(res jobResult) bool {
	p := c.pkg(res.test)
	p.inflight--
	if res.err != nil || res.run == nil || res.run.Canceled {
		return false
	}
	if !res.overlapped && p.started == res.pkgStarted {
		c.aloneEnded(p, res)
		return false
	}
	line := collision(res.run.Run)
	if line == "" {
		return c.overlapFailed(p, res)
	}
	c.putBack(res.test, res.request)
	if p.serial == "" {
		p.serial = fmt.Sprintf("%s run %d: %s", res.test.name, res.index, line)
		c.warnings = append(c.warnings, fmt.Sprintf("runs of package %s serialised: its tests collide on a fixed resource when run in parallel (%s)",
			res.test.bin.Package, p.serial))
	}
	return true
}

// putBack returns request r (nil: a free run, which needs nothing put back: the test runs
// free again when its queue is empty) to the front of t's requests.
func (c *campaign) putBack(t *testState, r *RunRequest) {
	if r == nil {
		return
	}
	if r.Strategy == "confirm" {
		t.confirm = append([]*RunRequest{r}, t.confirm...)
	} else {
		t.queue = append([]*RunRequest{r}, t.queue...)
	}
}

// discard drops a run that is not evidence (endPkgRun put back what runs again) and its files.
func (c *campaign) discard(t *testState, res jobResult) {
	if t.started == res.index {
		t.started-- // the next run takes its index (a first run is analyzed whatever its cost)
	}
	if !c.keepTraces {
		for _, f := range []string{res.run.Trace, res.run.Schedule} {
			if f != "" {
				os.Remove(f)
			}
		}
	}
	if t.inflight == 0 && !t.plainPending() && !c.canStart(t, time.Now()) { // (as finish: a test waiting for its plain check may resume)
		c.ended(t)
	}
	c.report(Progress{Package: t.bin.Package, Test: t.name})
}
