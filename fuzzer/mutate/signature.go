package mutate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goweave/goweave/analysis/trace"
	"github.com/goweave/goweave/fuzzer/schedule"
)

// Signature is the schedule-coverage signature of a run: a hash of its execution graph — for
// every object, the order in which operations were performed on it, which send each receive
// got its value from, and every select's choice — with operations named by OpID. Two runs have
// the same signature when they made the same scheduling decisions, whatever their goroutine
// numbers, object ids and timestamps.
func Signature(r *Run) string {
	sum := sha256.Sum256([]byte(ExecutionGraph(r)))
	return hex.EncodeToString(sum[:16])
}

// ExecutionGraph is the text Signature hashes: one sorted line per object.
func ExecutionGraph(r *Run) string {
	r.Prepare()
	t := r.Trace
	texts := newOpTexts(r)
	byObj := map[uint64][]int{}
	made := map[uint64]int{}
	sends := map[uint64]map[uint64]int{}
	var selects []string
	for i := range t.Events {
		e := &t.Events[i]
		if r.Names.Ops[i].IsZero() {
			continue // not counted: GoEnd, internal
		}
		if e.Kind == trace.KindSelect {
			selects = append(selects, texts.text(i)+fmt.Sprintf(" case %d", recordedCase(e)))
		}
		o := object(e)
		if o == 0 {
			continue
		}
		if e.Kind == trace.KindChanMake {
			made[o] = i
			continue
		}
		byObj[o] = append(byObj[o], i)
		if chanDir(e) == 1 && e.Completed() {
			if sends[o] == nil {
				sends[o] = map[uint64]int{}
			}
			sends[o][seqOf(e)] = i
		}
	}
	var lines []string
	for o, ops := range byObj {
		slices.SortStableFunc(ops, func(a, b int) int { return cmpU64(stamp(&t.Events[a]), stamp(&t.Events[b])) })
		name := ""
		if m, ok := made[o]; ok {
			name = "made " + texts.text(m)
		} else {
			name = "first " + texts.text(ops[0])
		}
		var b strings.Builder
		b.WriteString(name)
		b.WriteString(":")
		for _, i := range ops {
			e := &t.Events[i]
			b.WriteString(" | ")
			b.WriteString(texts.text(i))
			if f := e.Flags & (trace.FlagSuccess | trace.FlagClosed); f != 0 {
				b.WriteString(" " + f.String())
			}
			if !e.Completed() {
				b.WriteString(" blocked")
			}
			if chanDir(e) == -1 && e.Completed() && seqOf(e) != 0 {
				if s, ok := sends[o][seqOf(e)]; ok {
					b.WriteString(" <- " + texts.text(s))
				}
			}
		}
		lines = append(lines, b.String())
	}
	slices.Sort(lines)
	slices.Sort(selects)
	return strings.Join(lines, "\n") + "\n--\n" + strings.Join(selects, "\n")
}

// seqOf is the channel sequence number of a send or receive (select: of its chosen case).
func seqOf(e *trace.Event) uint64 {
	if e.Kind == trace.KindSelect {
		return e.B
	}
	return e.A
}

// opTexts makes the texts of the operations of one run ("<goroutine> <kind> <file>:<line>
// #<n>"). Formatting each with fmt took most of the signature of a large run (400k events:
// 13 s); the kind and position part repeats, so it is made once.
type opTexts struct {
	r     *Run
	sites map[opSiteKey]string // " <kind> <file>:<line> #"
}

type opSiteKey struct {
	kind trace.Kind
	pos  schedule.Pos
}

func newOpTexts(r *Run) *opTexts { return &opTexts{r: r, sites: map[opSiteKey]string{}} }

func (o *opTexts) text(i int) string {
	op := o.r.Names.Ops[i]
	k := opSiteKey{op.Kind, op.Pos}
	site, ok := o.sites[k]
	if !ok {
		site = fmt.Sprintf(" %s %s #", op.Kind, op.Pos)
		o.sites[k] = site
	}
	g := string(op.G)
	if g == "" {
		g = "?"
	}
	return g + site + strconv.Itoa(op.N)
}

// Coverage is the set of schedule signatures a campaign has seen, with how often each was seen.
// It is saved as JSON between campaigns.
type Coverage struct {
	mu     sync.Mutex
	Counts map[string]int `json:"counts"`
}

// NewCoverage returns an empty coverage.
func NewCoverage() *Coverage { return &Coverage{Counts: map[string]int{}} }

// Add counts sig and reports whether it is new.
func (c *Coverage) Add(sig string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Counts == nil {
		c.Counts = map[string]int{}
	}
	c.Counts[sig]++
	return c.Counts[sig] == 1
}

// Len is the number of distinct signatures seen.
func (c *Coverage) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.Counts)
}
