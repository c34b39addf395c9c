package run

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/goweave/goweave/fuzzer/build"
)

// CommandLine is the shell command that repeats a run of the test binary outside goweave
// (the same arguments and environment as Test).
func CommandLine(bin *build.TestBinary, test string, o Options) string {
	var env []string
	if o.Schedule != "" {
		env = append(env, envSchedule+"="+shellQuote(o.Schedule))
	}
	env = append(env, envTrace+"="+shellQuote(strings.TrimSuffix(o.Trace, ".trace")+"-again.trace"), envModule+"="+shellQuote(bin.Module))
	return fmt.Sprintf("cd %s && %s %s -test.run %s -test.count=1 -test.timeout=0 -test.v",
		shellQuote(bin.Dir), strings.Join(env, " "), shellQuote(bin.Path), shellQuote("^"+regexp.QuoteMeta(test)+"$"))
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
