package campaign

import (
	"fmt"
	"regexp"
	"strings"
)

// The message of a failing log line. Assertion libraries log a decoration on the log line
// and the substance on the lines below it (the testing package indents them under it), so
// the message is taken from the whole block:
//   - testify: an empty log line, then its fields ("Error Trace:", "Error:", "Messages:"),
//     the Error field's value continued on lines with an empty label ("expected: 5",
//     "actual  : 3"), then a "Diff:" or a recovered panic's "Panic value:";
//   - gomega: an empty log line, then "Expected", the value, "to equal", the value;
//   - goleak: "found unexpected goroutines:", then one "[Goroutine N in state S, with F on
//     top of the stack:" and its traceback per goroutine;
//   - t.Errorf("mismatch (-want +got):\n%s", diff) and the like: a line ending in ":".
// Survey 9 reported "failed: Not equal:" and "its last output: "]"" for these.

// maxMessage caps the substance taken from a block: a message is one line of a report.
const maxMessage = 300

// goleakHeader is goleak's line for each goroutine it found.
var goleakHeader = regexp.MustCompile(`^\[?\s*Goroutine \d+ in state ([^,]+), with (\S+) on top of the stack:`)

// paddedLabel is a label testify pads to the width of another ("actual  :").
var paddedLabel = regexp.MustCompile(`^(\w+) +:`)

// goleakFound is how goleak's VerifyNone and Find report (a line in goleak's leaks.go, not
// the test's file: it does not call t.Helper).
const goleakFound = "found unexpected goroutines:"

// logMessage is the message of the failing log line with text whose block (the lines below
// it up to the test's verdict) is below.
func logMessage(text string, below []string) string {
	block := logBlock(below)
	text = strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(text, goleakFound):
		return goleakMessage(block)
	case text == "":
		if msg, ok := testifyMessage(block); ok {
			return msg
		}
		return joinBlock(block)
	case strings.HasSuffix(text, ":"):
		if rest := joinBlock(block); rest != "" {
			return text + " " + rest
		}
	}
	return text
}

// logBlock is the continuation of a log line: the lines below it the testing package
// indented under it, without that indentation, up to the next log line or verdict.
func logBlock(below []string) []string {
	var out []string
	for _, l := range below {
		if logLine.MatchString(l) {
			break
		}
		rest, ok := strings.CutPrefix(l, "        ")
		if !ok && strings.TrimSpace(l) != "" {
			break // "--- FAIL", "=== RUN", a line the test printed itself
		}
		out = append(out, rest)
	}
	return out
}

// testifyMessage is the Error field of a testify report with its continuation lines
// ("expected: 5", "actual: 3"), the recovered panic's value, and the Messages field. When
// expected and actual are too long to read on one line (structs), the diff's changed lines
// say what differs instead.
func testifyMessage(block []string) (string, bool) {
	var head, messages, panicked string
	var parts, diff []string
	field, inDiff := "", false
	for _, l := range block {
		l = strings.TrimLeft(l, " ") // a subtest's lines are indented further
		label, value, ok := strings.Cut(strings.TrimPrefix(l, "\t"), "\t")
		if !ok || !strings.HasPrefix(l, "\t") {
			continue
		}
		if label = strings.TrimSpace(label); label != "" {
			field, inDiff = strings.TrimSuffix(label, ":"), false
			switch field {
			case "Error":
				head = strings.TrimSpace(value)
			case "Messages":
				messages = strings.TrimSpace(value)
			}
			continue
		}
		if field != "Error" {
			continue
		}
		if inDiff {
			if d := strings.TrimSpace(value); (strings.HasPrefix(d, "-") || strings.HasPrefix(d, "+")) && !strings.HasPrefix(d, "---") && !strings.HasPrefix(d, "+++") {
				diff = append(diff, strings.TrimSuffix(strings.Join(strings.Fields(d), " "), ","))
			}
			continue
		}
		value = strings.TrimSpace(value)
		switch {
		case strings.HasPrefix(value, "Panic value:"):
			panicked = strings.TrimSpace(strings.TrimPrefix(value, "Panic value:"))
			field = "" // its stack follows
		case value == "Diff:":
			inDiff = true
		case value == "" || strings.HasPrefix(value, "Panic stack:"):
		default:
			value = paddedLabel.ReplaceAllString(value, "$1:") // "actual  : 3"
			parts = append(parts, strings.Join(strings.Fields(value), " "))
		}
	}
	if head == "" {
		return "", false
	}
	msg := head
	if rest := strings.Join(parts, ", "); len(rest) > maxMessage/2 && len(diff) > 0 {
		msg = strings.TrimSuffix(msg, ":") + " (-expected +actual): " + strings.Join(diff, "; ")
	} else if rest != "" {
		if !strings.HasSuffix(msg, ":") {
			msg += ":"
		}
		msg += " " + rest
	}
	if panicked != "" {
		msg += ": panic: " + panicked
	}
	if messages != "" {
		msg += " (" + messages + ")"
	}
	return capMessage(msg), true
}

// goleakMessage counts the goroutines goleak found and names the function on top of each
// of the first three, with its state.
func goleakMessage(block []string) string {
	var tops []string
	n := 0
	for _, l := range block {
		m := goleakHeader.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		n++
		if len(tops) < 3 {
			fn := m[2]
			if i := strings.LastIndexByte(fn, '/'); i >= 0 {
				fn = fn[i+1:]
			}
			tops = append(tops, fmt.Sprintf("%s (%s)", fn, m[1]))
		}
	}
	if n == 0 {
		return goleakFound[:len(goleakFound)-1]
	}
	msg := fmt.Sprintf("goleak found %d unexpected goroutine(s): %s", n, strings.Join(tops, ", "))
	if n > len(tops) {
		msg += fmt.Sprintf(" and %d more", n-len(tops))
	}
	return msg
}

// joinBlock is the block's non-empty lines on one line ("Expected <int>: 4 to equal <int>: 6").
func joinBlock(block []string) string {
	var parts []string
	n := 0
	for _, l := range block {
		if l = strings.Join(strings.Fields(l), " "); l != "" && n <= maxMessage {
			parts = append(parts, l)
			n += len(l) + 1
		}
	}
	return capMessage(strings.Join(parts, " "))
}

func capMessage(s string) string { return capLine(s, maxMessage) }
