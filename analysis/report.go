package analysis

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/goweave/goweave/analysis/trace"
)

// op is an event playing a role in a finding.
type op struct {
	role string
	ev   int32
}

// newFinding builds a finding of kind from its operations, primary first. Positions come
// from the events; goroutines are those performing them, named by their spawn sites. A
// finding whose primary operation has no source position (it ran in code that was not
// recorded) comes back without a Kind and is dropped by Analyze: it could not be shown; so
// does a pair of a library's own operations (rule_library.go).
func (r *Result) newFinding(kind string, conf Confidence, msg string, ops ...op) Finding {
	if len(ops) == 0 || ops[0].ev < 0 || r.Trace.Position(r.Trace.Events[ops[0].ev].Pos).File == "" || r.libraryOwned(kind, conf, ops) {
		return Finding{}
	}
	f := Finding{Kind: kind, Confidence: conf, Severity: SeverityOf(kind, conf), Message: msg}
	if r.Trace.Meta != nil {
		f.Test = r.Trace.Meta["test"]
		f.Package = r.Trace.Meta["package"]
	}
	seenG := map[int32]bool{}
	for _, o := range ops {
		if o.ev < 0 {
			continue
		}
		p := r.Trace.Position(r.Trace.Events[o.ev].Pos)
		if p.File != "" {
			if p.Column == 0 {
				p.Column = column(r.Trace.Events[o.ev].Kind, p.File, p.Line)
			}
			f.Positions = append(f.Positions, Position{Role: o.role, File: p.File, Line: p.Line, Column: p.Column})
		}
		if g := r.gOf[o.ev]; g >= 0 && !seenG[g] {
			seenG[g] = true
			info := r.Goroutines[g]
			gr := Goroutine{ID: info.ID}
			if info.Spawn >= 0 {
				gr.Spawn = r.relPos(r.Trace.Events[info.Spawn].Pos)
			}
			f.Goroutines = append(f.Goroutines, gr)
		}
	}
	f.Fingerprint = r.fingerprint(kind, f.Positions)
	return f
}

// fingerprint identifies a finding across runs: its kind and its positions (module-relative,
// with roles), sorted, so it depends on neither stamps, goroutine numbers nor checkouts.
func (r *Result) fingerprint(kind string, ps []Position) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s@%s:%d", p.Role, r.rel(p.File), p.Line))
	}
	sort.Strings(parts)
	h := sha256.Sum256([]byte(kind + "\n" + strings.Join(parts, "\n")))
	return hex.EncodeToString(h[:8])
}

// rel makes a file name relative to the recorded module root, or its base name.
func (r *Result) rel(file string) string {
	if root := r.Trace.Meta["module"]; root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(file)
}

func (r *Result) relPos(id uint32) string {
	p := r.Trace.Position(id)
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", r.rel(p.File), p.Line)
}

// at names the source position of event i for messages: base name and line.
func (r *Result) at(i int32) string {
	if i < 0 {
		return "?"
	}
	p := r.Trace.Position(r.Trace.Events[i].Pos)
	if p.File == "" {
		return "an unknown position"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line)
}

// operand extracts the operand of the operation at event i from its source line (the
// channel of a send or receive, the mutex of a Lock), so messages speak the program's
// names; it falls back to a generic noun.
func (r *Result) operand(i int32, fallback string) string {
	if i < 0 {
		return fallback
	}
	ev := &r.Trace.Events[i]
	p := r.Trace.Position(ev.Pos)
	line := sourceLine(p.File, p.Line)
	if line == "" {
		return fallback
	}
	var re *regexp.Regexp
	switch ev.Kind {
	case trace.KindChanSend:
		re = sendRe
	case trace.KindChanRecv:
		re = recvRe
	case trace.KindChanClose:
		re = closeRe
	case trace.KindLock, trace.KindUnlock, trace.KindRLock, trace.KindRUnlock, trace.KindTryLock, trace.KindTryRLock:
		re = lockRe
	case trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait:
		re = wgRe
	case trace.KindCondWait, trace.KindCondSignal, trace.KindCondBroadcast:
		re = condRe
	case trace.KindOnceDo:
		re = onceRe
	default:
		return fallback
	}
	if m := re.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return fallback
}

const expr = `([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\]|\(\))*)`

var (
	sendRe  = regexp.MustCompile(expr + `\s*<-`)
	recvRe  = regexp.MustCompile(`<-\s*` + expr)
	closeRe = regexp.MustCompile(`close\(\s*` + expr + `\s*\)`)
	lockRe  = regexp.MustCompile(expr + `\.(?:Lock|Unlock|RLock|RUnlock|TryLock|TryRLock)\(`)
	wgRe    = regexp.MustCompile(expr + `\.(?:Add|Done|Wait|Go)\(`)
	condRe  = regexp.MustCompile(expr + `\.(?:Wait|Signal|Broadcast)\(`)
	onceRe  = regexp.MustCompile(expr + `\.Do\(`)
)

var (
	sourceMu    sync.Mutex
	sourceCache = map[string][]string{}
)

// sourceLine returns line n of file, or "" when it cannot be read.
func sourceLine(file string, n int) string {
	sourceMu.Lock()
	defer sourceMu.Unlock()
	lines, ok := sourceCache[file]
	if !ok {
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			f.Close()
		}
		sourceCache[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
