package campaign

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// A hidden debugging aid for the campaign's own memory: with GOWEAVE_MEMPROFILE=<file>,
// the process (goweave fuzz, serve, analyze) writes a heap profile to file whenever its
// live heap passes its previous peak by an eighth, so that the file, at exit, holds what
// was live at the heap's largest point (`go tool pprof -sample_index=inuse_space`). A
// profile taken at exit would show only what is left then.

const memProfileEnv = "GOWEAVE_MEMPROFILE"

func init() {
	if path := os.Getenv(memProfileEnv); path != "" {
		go profilePeaks(path, 200*time.Millisecond)
	}
}

// profilePeaks samples the live heap every period and writes a profile at each new peak.
func profilePeaks(path string, period time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	for range time.Tick(period) {
		metrics.Read(sample)
		live := sample[0].Value.Uint64()
		if live <= peak+peak/8 {
			continue
		}
		peak = live
		// The profile's in-use figures are those of the last collection: collect now so
		// that it is this peak's.
		runtime.GC()
		f, err := os.Create(path)
		if err != nil {
			return
		}
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}
