package lsp

import (
	"regexp"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/goweave/goweave/fuzzer"
)

// Campaign warnings: problems a campaign went on despite (a run not analyzed because its
// analysis needed more than the memory budget or the time budget ended, a slow test, state
// that could not be saved). goweave
// fuzz prints them; the editor user sees each kind once per session (window/showMessage,
// a warning notification) and every one in the log (window/logMessage), and the
// campaign's progress end counts them. Background fuzzing reruns a package's campaign on
// every save, so the same warning with other run numbers or figures is not shown again.

// warningsShown remembers the warnings already shown to the user, by their text without
// numbers.
type warningsShown struct {
	mu   sync.Mutex
	seen map[string]bool
}

var warningNumbers = regexp.MustCompile(`\d+(\.\d+)?`)

// The flags the campaign's warnings name, as the editor user can act on them: the time
// budget is the setting budgetPerTest; the time limit of a run has no setting (the editor's
// campaigns keep goweave's default), only goweave fuzz's flag.
var (
	budgetFlag  = regexp.MustCompile(`-time (\d[\w.]*)`)
	raiseBudget = strings.NewReplacer("raise -time", "raise the setting budgetPerTest", "a larger -time", "a larger budgetPerTest setting",
		"tests × -time / -p", "tests × budgetPerTest / parallel", "tests × -time", "tests × budgetPerTest")
	timeoutFlag = regexp.MustCompile(`\(-timeout ([\w.]+) or more\)`)
)

// forEditor rewrites the flags a campaign warning names into what the editor user can set.
func forEditor(w string) string {
	w = strings.ReplaceAll(w, "(-analysis-memory)", "(setting analysisMemory, in MB)")
	w = budgetFlag.ReplaceAllString(w, "setting budgetPerTest: $1")
	w = raiseBudget.Replace(w)
	return timeoutFlag.ReplaceAllString(w, "(goweave fuzz -timeout $1 or more, from a terminal: the editor's campaigns keep the default time limit)")
}

// first reports whether a warning like w is new to the user, and notes it.
func (ws *warningsShown) first(w string) bool {
	key := warningNumbers.ReplaceAllString(w, "#")
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.seen[key] {
		return false
	}
	if ws.seen == nil {
		ws.seen = map[string]bool{}
	}
	ws.seen[key] = true
	return true
}

// showWarnings tells the user about the errors (tests the campaign could not fuzz, such as
// one failing in every run) and warnings of a campaign's report. An error is shown on every
// campaign that has it: the test stays broken until the user fixes it.
func (c *campaigns) showWarnings(cp *campaign, report *fuzzer.Report) {
	s := c.s
	for _, e := range report.Errors {
		s.tell(protocol.MessageTypeError, "fuzzing %s: %s", relDir(s, cp.req.dir), forEditor(e))
	}
	for _, w := range report.Warnings {
		w = forEditor(w)
		if c.warned.first(w) {
			s.tell(protocol.MessageTypeWarning, "fuzzing %s: %s", relDir(s, cp.req.dir), w)
		} else {
			s.logf(protocol.MessageTypeWarning, "fuzzing %s: %s", relDir(s, cp.req.dir), w)
		}
	}
}

// unfinishedCount is ", N test(s) with no finished run" for a progress end message, or "":
// then "0 findings" is not all the campaign knows (the warnings name them).
func unfinishedCount(report *fuzzer.Report) string {
	if len(report.Unfinished) == 0 {
		return ""
	}
	return ", " + plural(len(report.Unfinished), "test") + " with no finished run"
}

// warningCount is ", N warning(s)" for a progress end message, or "".
func warningCount(report *fuzzer.Report) string {
	if len(report.Warnings) == 0 {
		return ""
	}
	return ", " + plural(len(report.Warnings), "warning")
}
