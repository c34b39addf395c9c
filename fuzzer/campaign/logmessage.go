package campaign

import "strings"

// logMessage is the message of a failing log line: its text, or when the line carries none
// (testify's assertions log "x_test.go:12: " and the report on the lines below it), the
// report's "Error:" field with the "Panic value:" of a recovered panic.
func logMessage(text string, below []string) string {
	if strings.TrimSpace(text) != "" {
		return text
	}
	var msg string
	for _, l := range below {
		if logLine.MatchString(l) {
			break // the next log line
		}
		field, value, ok := strings.Cut(strings.TrimSpace(l), ":")
		value = strings.TrimSpace(value)
		switch {
		case !ok:
		case field == "Error" && msg == "":
			msg = value
		case field == "Panic value" && msg != "":
			return msg + ": panic: " + value
		case field == "Messages" && msg != "":
			msg += " (" + value + ")"
		}
	}
	return msg
}
