package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// One bug, one finding. The detectors report what each run shows from each angle: every
// blocked operation of a stuck run, the actual and the predicted instance of the same
// wrong Done, a lock cycle and the deadlock it caused. Group puts the findings of one root
// cause together, by these rules (a finding joins a group when any rule links it to one
// of its members):
//
//  1. The same operation: two findings of the same kind whose primary positions are the
//     same line (the actual and the predicted instance of one bug; the same misuse seen
//     with a different partner).
//  2. The same stuck state: deadlock findings over the same set of blocked lines (the
//     deadlock detector reports each blocked operation of a stuck run).
//  3. The same lock cycle: cyclic-deadlock findings whose lock requests are the same lines,
//     in whatever order and from whichever goroutine the cycle was found.
//  4. The cycle and its symptoms: a deadlock or leak whose primary (blocked) operation is a
//     request of a cyclic- or mixed-deadlock finding (the cycle that happened, or the
//     goroutines it left blocked).
//  5. A symptom and its cause: a flaky-panic, flaky-failure or hang finding whose primary
//     position is the primary position of a finding of another kind (the panic a
//     send-on-closed or negative-waitgroup finding explains).
//  6. One hanging test: the hang findings of the same test (a spinning goroutine stops at
//     any line of its loop).
//  7. A symptom and the bug it came with: a flaky-panic, flaky-failure or hang that no
//     other rule explains and that happened in exactly the runs in which the bug (rules
//     1-6) happened (the nil dereference on the line after a receive from a closed
//     channel; a deferred wg.Done() that panics at its function's end). Only a campaign
//     knows the runs: see GroupWith.
//
// The cause of a group is the finding that explains most: cycles first, then the
// specific kinds (send-on-closed, negative-waitgroup, ...), then leaks, then deadlock,
// then the symptoms (flaky-panic, flaky-failure, hang); among equals the strongest
// confidence (confirmed, actual, predicted), then the finding with more positions (a
// prediction names the operation the bug races with). The bug's confidence is the
// strongest of the group: a cycle predicted in one run and stuck in another happened.

// A Bug is the findings of one root cause, as indices into the slice given to Group.
type Bug struct {
	Cause      int        // the finding whose message names the cause
	Others     []int      // the other findings of the bug, in the order given
	Confidence Confidence // the strongest confidence of the group
}

// Group partitions findings into bugs by the rules above but the seventh. Bugs come in the
// order of their first finding.
func Group(findings []Finding) []Bug { return GroupWith(findings, nil) }

// GroupWith is Group with rule 7: sameRuns(symptom, bug) reports whether finding symptom
// happened in exactly the runs in which the findings bug happened (nil: unknown).
func GroupWith(findings []Finding, sameRuns func(symptom int, bug []int) bool) []Bug {
	parent := make([]int, len(findings))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i, j int) {
		if a, b := find(i), find(j); a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	// Rules 1-3 and 6 link findings with equal keys.
	first := map[string]int{}
	link := func(key string, i int) {
		if j, ok := first[key]; ok {
			union(i, j)
		} else {
			first[key] = i
		}
	}
	for i, f := range findings {
		if p, ok := primaryLine(f); ok {
			key := "op\x00" + f.Kind + "\x00" + p
			if FailedInHelper(&f) {
				key += "\x00" + f.Package + "\x00" + f.Test // each calling test's own failure
			}
			link(key, i)
		}
		var lines []string
		switch f.Kind {
		case "deadlock":
			lines = lineSet(f.Positions, nil)
		case "cyclic-deadlock":
			lines = lineSet(f.Positions, cycleRequests)
		}
		if len(lines) > 0 {
			link(f.Kind+"\x00"+strings.Join(lines, "\x00"), i)
		}
		if f.Kind == "hang" {
			link("hang\x00"+f.Package+"\x00"+f.Test, i)
		}
	}
	// Rules 4 and 5 link a finding to a cause.
	for i, c := range findings {
		var requests []string
		if c.Kind == "cyclic-deadlock" || c.Kind == "mixed-deadlock" {
			requests = lineSet(c.Positions, cycleRequests)
		}
		cp, cok := primaryLine(c)
		for j, s := range findings {
			sp, ok := primaryLine(s)
			if i == j || !ok {
				continue
			}
			if (s.Kind == "deadlock" || strings.HasPrefix(s.Kind, "leak-")) && slices.Contains(requests, sp) {
				union(i, j)
			}
			if cok && symptomKinds[s.Kind] && !symptomKinds[c.Kind] && sp == cp {
				union(i, j)
			}
		}
	}
	groups := func() (map[int][]int, []int) {
		members := map[int][]int{}
		var roots []int
		for i := range findings {
			r := find(i)
			if _, ok := members[r]; !ok {
				roots = append(roots, r)
			}
			members[r] = append(members[r], i)
		}
		return members, roots
	}
	members, roots := groups()
	// Rule 7 links a symptom left alone to the bug that happened in the same runs.
	if sameRuns != nil {
		onlySymptoms := func(m []int) bool {
			return !slices.ContainsFunc(m, func(i int) bool { return !symptomKinds[findings[i].Kind] })
		}
		for _, s := range roots {
			if !onlySymptoms(members[s]) {
				continue
			}
			for _, j := range members[s] {
				for _, r := range roots {
					if !onlySymptoms(members[r]) && sameRuns(j, members[r]) {
						union(j, r)
						break
					}
				}
			}
		}
		members, roots = groups()
	}
	bugs := make([]Bug, 0, len(roots))
	for _, r := range roots {
		m := members[r]
		cause := slices.MinFunc(m, func(a, b int) int { return compareCauses(findings[a], findings[b]) })
		b := Bug{Cause: cause, Confidence: findings[cause].Confidence}
		for _, i := range m {
			if i != cause {
				b.Others = append(b.Others, i)
			}
			if confidenceStrength[findings[i].Confidence] > confidenceStrength[b.Confidence] {
				b.Confidence = findings[i].Confidence
			}
		}
		bugs = append(bugs, b)
	}
	return bugs
}

// symptomKinds are kinds that show that something went wrong, not why.
var symptomKinds = map[string]bool{"flaky-panic": true, "flaky-failure": true, "hang": true}

// SymptomKind reports whether kind only shows that a run went wrong, not why: the kinds
// read from how runs ended (flaky-panic, flaky-failure, hang; see detect_outcome.go).
func SymptomKind(kind string) bool { return symptomKinds[kind] }

// cycleRequests are the roles of the operations a cycle's goroutines block in.
var cycleRequests = map[string]bool{"lock": true, "writer lock": true, "channel operation": true, "partner's lock": true}

// confidenceStrength orders confidences by the evidence they carry.
var confidenceStrength = map[Confidence]int{Predicted: 0, Actual: 1, Confirmed: 2}

// causeRank orders kinds by how much of the cause they name (lower first).
func causeRank(kind string) int {
	switch {
	case kind == "cyclic-deadlock" || kind == "mixed-deadlock":
		return 0
	case symptomKinds[kind]:
		return 4
	case kind == "deadlock":
		return 3
	case strings.HasPrefix(kind, "leak-"):
		return 2
	}
	return 1
}

func compareCauses(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(causeRank(a.Kind), causeRank(b.Kind)),
		-cmp.Compare(confidenceStrength[a.Confidence], confidenceStrength[b.Confidence]),
		-cmp.Compare(len(a.Positions), len(b.Positions)),
		cmp.Compare(a.Fingerprint, b.Fingerprint),
	)
}

func primaryLine(f Finding) (string, bool) {
	if len(f.Positions) == 0 || f.Positions[0].File == "" {
		return "", false
	}
	return lineKey(f.Positions[0]), true
}

func lineKey(p Position) string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// lineSet is the sorted distinct lines of the positions whose role is in roles (all
// positions when roles is nil).
func lineSet(ps []Position, roles map[string]bool) []string {
	var out []string
	for _, p := range ps {
		if p.File != "" && (roles == nil || roles[p.Role]) {
			out = append(out, lineKey(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
