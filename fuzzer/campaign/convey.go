package campaign

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/goweave/goweave/analysis"
)

// goconvey fails a test without a log line of the testing package: it prints its own
// report with fmt, then the count of assertions, last ("4 total assertions", which survey 9
// took for the message of 11 hystrix-go failures). Its report names each failed assertion
// in a "Failures:" section, and each panic in an "Errors:" one:
//
//	Failures:
//
//	  * /abs/path/x_test.go
//	  Line 22:
//	  Expected: 5
//	  Actual:   3
//	  (Should equal)!
//
//	Errors:
//
//	  * /abs/path/x_test.go
//	  Line 12: - assignment to entry in nil map
//	  goroutine 23 [running]: ...

// conveyLine is the line of the assertion, and for an error its panic.
var conveyLine = regexp.MustCompile(`^Line (\d+):(?: - (.*))?$`)

// conveyFailure reads the first failed assertion or panic of goconvey's last report in
// before (a test's output before its "--- FAIL" line): its message and position.
func conveyFailure(before []string) (string, analysis.Position, bool) {
	start := -1
	for i := len(before) - 1; i >= 0 && start < 0; i-- {
		if l := strings.TrimSpace(before[i]); l == "Failures:" || l == "Errors:" {
			start = i
		}
	}
	if start < 0 {
		return "", analysis.Position{}, false
	}
	errors := strings.TrimSpace(before[start]) == "Errors:"
	var file string
	var line int
	var parts []string
	for _, l := range before[start+1:] {
		l = strings.TrimSpace(l)
		switch {
		case file == "":
			if f, ok := strings.CutPrefix(l, "* "); ok {
				file = strings.TrimSpace(f)
			}
			continue
		case line == 0:
			m := conveyLine.FindStringSubmatch(l)
			if m == nil {
				return "", analysis.Position{}, false
			}
			line, _ = strconv.Atoi(m[1])
			if errors {
				parts = append(parts, "panic: "+strings.TrimSpace(m[2]))
			}
			continue
		}
		if errors || l == "" {
			break // a panic's traceback follows; a blank line ends a failure
		}
		if strings.HasPrefix(l, "Diff:") {
			continue // colored, and expected and actual say it
		}
		parts = append(parts, strings.Join(strings.Fields(l), " "))
	}
	if file == "" || line == 0 || len(parts) == 0 {
		return "", analysis.Position{}, false
	}
	msg := strings.Join(parts, ", ")
	msg = strings.ReplaceAll(msg, ", (", " (")
	msg = strings.TrimSuffix(msg, "!")
	var at analysis.Position
	if _, err := os.Stat(file); err == nil {
		at = position("failure", stackFrame{file: file, line: line})
	}
	if n := conveyCount(before[start:]); n > 1 {
		msg += fmt.Sprintf(" (the first of %d)", n)
	}
	return capMessage(msg), at, true
}

// conveyCount is the number of failed assertions or panics in a goconvey section.
func conveyCount(section []string) int {
	n := 0
	for _, l := range section {
		if strings.HasPrefix(strings.TrimSpace(l), "* ") {
			n++
		}
	}
	return n
}
