package analysis

import (
	"regexp"
	"strings"

	"github.com/goweave/goweave/analysis/trace"
)

// The recorder knows lines, not columns (the runtime's PC tables have none). A finding's
// positions get the column of their operation on its source line, found as the operand
// names are (see operand): the send or receive arrow, close(, the method of a sync call
// (at its dot, where the editor's range starts), the select, go or for keyword. Where no
// pattern fits, the line's first non-blank character. A line that cannot be read gets 0
// (unknown). The editor picks the operation containing this column when a line holds
// several.

var (
	selectRe = regexp.MustCompile(`\bselect\b`)
	goRe     = regexp.MustCompile(`\bgo\b`)
)

// column returns the 1-based byte column of an operation of kind on line of file, or 0
// when the line cannot be read.
func column(kind trace.Kind, file string, line int) int {
	text := sourceLine(file, line)
	if text == "" {
		return 0
	}
	if off := operationOffset(kind, text); off >= 0 {
		return off + 1
	}
	return len(text) - len(strings.TrimLeft(text, " \t")) + 1
}

// LineColumn is the 1-based column of the first non-blank character of line of file, or 0
// when the line cannot be read: the column of positions known by their line only (a
// panic's stack frame, a test's log line).
func LineColumn(file string, line int) int {
	text := sourceLine(file, line)
	if strings.TrimSpace(text) == "" {
		return 0
	}
	return len(text) - len(strings.TrimLeft(text, " \t")) + 1
}

// operationOffset is the byte offset of the operation of kind in text, or -1.
func operationOffset(kind trace.Kind, text string) int {
	at := func(re *regexp.Regexp, group int) int {
		if m := re.FindStringSubmatchIndex(text); m != nil {
			return m[group]
		}
		return -1
	}
	switch kind {
	case trace.KindChanSend:
		if m := sendRe.FindStringIndex(text); m != nil {
			return m[1] - len("<-")
		}
	case trace.KindChanRecv:
		return at(recvRe, 0)
	case trace.KindChanClose:
		return at(closeRe, 0)
	case trace.KindSelect, trace.KindSelectCase:
		return at(selectRe, 0)
	case trace.KindGoSpawn:
		return at(goRe, 0)
	case trace.KindLock, trace.KindUnlock, trace.KindRLock, trace.KindRUnlock, trace.KindTryLock, trace.KindTryRLock:
		return at(lockRe, 3) // the end of the operand: the method's dot
	case trace.KindWgAdd, trace.KindWgDone, trace.KindWgWait:
		return at(wgRe, 3)
	case trace.KindCondWait, trace.KindCondSignal, trace.KindCondBroadcast:
		return at(condRe, 3)
	case trace.KindOnceDo:
		return at(onceRe, 3)
	}
	return -1
}
