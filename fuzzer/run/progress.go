package run

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/goweave/goweave/runtimepatch"
)

// Slow is not hung. At its time limit a run is asked whether it is still making progress,
// and only a run that is not is stopped there (and may be reported as a hang). The evidence,
// compared over the last progressWindow:
//
//   - the progress record the patched runtime keeps in the file named by
//     runtimepatch.EnvProgress: recorded operations (its event count changed), or a timer
//     that could still wake a goroutine, or a goroutine running, runnable or in a system
//     call (its flags);
//   - the CPU time of the test's process group (/proc), at least progressCPU per second.
//
// A run still making progress goes on, up to Options.SlowLimit, probed every
// progressWindow: it is stopped as soon as it stops progressing, or at the limit. It is
// probed only around the time limit, so a run that ends in time costs nothing.

// progressWindow is how far back the evidence of progress looks.
const progressWindow = time.Second

// progressCPU is the CPU time per second of the process group that counts as working: an
// idle Go process (every goroutine blocked, sysmon asleep) uses next to none, and the
// kernel counts CPU time in ticks of 10 ms, so one tick in a second could be noise.
const progressCPU = 20 * time.Millisecond

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// progressSample is one look at a running test process.
type progressSample struct {
	at      time.Time
	cpu     time.Duration // CPU time of the process group so far; -1: not known
	rec     runtimepatch.Progress
	haveRec bool // the process has written its progress record
}

// progressProbe looks at the test process whose process group is pgid and whose progress
// record is file ("" when the run is not recorded).
type progressProbe struct {
	pgid int
	file string
}

func (p progressProbe) sample() progressSample {
	s := progressSample{at: time.Now(), cpu: groupCPU(p.pgid)}
	if p.file != "" {
		if rec, err := runtimepatch.ReadProgress(p.file); err == nil {
			s.rec, s.haveRec = rec, true
		}
	}
	return s
}

// progressed says whether the process made progress between samples a and b (a earlier),
// and the evidence ("" when it did not).
func progressed(a, b progressSample) string {
	var why []string
	if b.haveRec {
		if !a.haveRec || b.rec.Events != a.rec.Events {
			why = append(why, "operations recorded")
		}
		if b.rec.Flags&runtimepatch.ProgressRunnable != 0 {
			why = append(why, "goroutines running")
		}
		if b.rec.Flags&runtimepatch.ProgressTimer != 0 {
			why = append(why, "a timer pending")
		}
	}
	if a.cpu >= 0 && b.cpu >= 0 {
		used, span := b.cpu-a.cpu, b.at.Sub(a.at)
		if span > 0 && used*time.Second >= progressCPU*span {
			why = append(why, fmt.Sprintf("%.0f%% CPU", 100*used.Seconds()/span.Seconds()))
		}
	}
	return strings.Join(why, ", ")
}

// groupCPU is the CPU time (user and system) used so far by the processes of the process
// group pgid, or -1 when /proc cannot tell.
func groupCPU(pgid int) time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	var ticks uint64
	found := false
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		pgrp, cpu, ok := parseStat(stat)
		if ok && pgrp == pgid {
			ticks += cpu
			found = true
		}
	}
	if !found {
		return -1
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// parseStat reads the process group and the CPU ticks (utime + stime) of a process from its
// /proc/<pid>/stat: fields after the parenthesized command are state, ppid, pgrp, session,
// tty_nr, tpgid, flags, minflt, cminflt, majflt, cmajflt, utime, stime.
func parseStat(stat []byte) (pgrp int, ticks uint64, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	utime, err2 := strconv.ParseUint(f[11], 10, 64)
	stime, err3 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, 0, false
	}
	return pgrp, utime + stime, true
}
