// Command repin writes a recipe's schedule as the campaign now writes it (pinnedChoices),
// from the stored trace of the run that found the finding: a free ("record") run's Replay
// (atomics included); a steered run's schedule with PinRun (and PinChoices for a flaky
// failure or panic); a predicted or confirmed finding's as it was. Exit status 3: unchanged.
//
//	repin RECIPE.json OUT.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/mutate"
	"github.com/goweave/goweave/fuzzer/schedule"
)

func main() {
	in, out := os.Args[1], os.Args[2]
	data, err := os.ReadFile(in)
	if err != nil {
		panic(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		panic(err)
	}
	f := rec["finding"].(map[string]any)
	tr, err := trace.ReadFile(f["trace"].(string))
	if err != nil {
		panic(err)
	}
	sched, _ := rec["schedule"].(string)
	kind, _ := f["kind"].(string)
	conf, _ := f["confidence"].(string)
	strategy, _ := f["strategy"].(string)
	r := &mutate.Run{Trace: tr, SelectPartners: map[int][]int{}}
	var s *schedule.Schedule
	switch {
	case conf != "actual": // a predicted or confirmed finding replays by its rewrite
		os.Exit(3)
	case strategy == "record" && conf == "actual":
		s = mutate.Replay(r, 0)
	case sched != "":
		s, err = schedule.Unmarshal([]byte(sched))
		if err != nil {
			panic(err)
		}
		if kind == "flaky-failure" || kind == "flaky-panic" {
			mutate.PinChoices(s, r)
		}
		mutate.PinRun(s, r)
	default:
		os.Exit(3)
	}
	b, err := schedule.Marshal(s)
	if err != nil {
		panic(err)
	}
	if string(b) == sched {
		os.Exit(3)
	}
	rec["schedule"] = string(b)
	data, _ = json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(out, data, 0o644); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "%s: order %d ops, pins atomics %v\n", in, len(s.Order.Ops), s.Order.PinsAtomics())
}
