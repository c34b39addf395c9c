package mutate

import "github.com/goweave/goweave/analysis/trace"

// testEndChains: [end, use] for a use of a test's T (the claim's primary position) and the
// end of that test (role "test") that the use need not precede. Package testing, under the
// schedule, lets the held use find its test completed (runtimepatch _patch/testing).
func testEndChains(r *Run, c Claim) [][]int {
	uses := at(r, c, "", func(e *trace.Event) bool { return e.Kind == trace.KindTestUse })
	ends := at(r, c, roleOf(c, 1, "test"), func(e *trace.Event) bool { return e.Kind == trace.KindTestEnd })
	var out [][]int
	for _, u := range uses {
		for _, end := range ends {
			if r.Trace.Events[u].Obj == r.Trace.Events[end].Obj && !r.HB.HappensBefore(u, end) {
				out = append(out, []int{end, u})
			}
		}
	}
	return out
}
