package runtimepatch

// testingSiteTable are the patch sites of package testing
// (_patch/testing/zz_goweave.go, _patch/runtime/zz_goweave_testing.go): each
// public method of a test's T that panics once the test has completed (Log,
// Error, Fatal, Skip and their f forms, Fail, FailNow, SkipNow) records a
// TestUse at the user's call (made through a dependency's assertion, as
// testify's, or a t.Helper(): at the module's line go test names), and tRunner records the TestEnd where it marks
// the test done (before it marks it, so that a schedule admits the end
// before that takes effect, as for every operation). A method another of them calls (Error calls Fail) sees a
// caller in package testing and records nothing. The text is the same from
// go1.25.0 to go1.27.4.
var testingSiteTable = append([]site{
	{"testing/testing.go", "import", "", "\t\"internal/race\"", "\t\"internal/race\"; \"internal/runtime/sys\""},
	{"testing/testing.go", "type common", "", "\tmu          sync.RWMutex         // guards this group of fields",
		"\tmu          sync.RWMutex; goweaveID uint64; goweaveEnded atomic.Bool // guards this group of fields"},
	{"testing/testing.go", "tRunner", "", "\t\tt.done = true", "\t\tgoweaveEnd(t, fn); t.done = true; goweaveDone(t)"},
}, testingUseSites(map[string]string{
	"Log":     "func (c *common) Log(args ...any) {",
	"Logf":    "func (c *common) Logf(format string, args ...any) {",
	"Error":   "func (c *common) Error(args ...any) {",
	"Errorf":  "func (c *common) Errorf(format string, args ...any) {",
	"Fatal":   "func (c *common) Fatal(args ...any) {",
	"Fatalf":  "func (c *common) Fatalf(format string, args ...any) {",
	"Skip":    "func (c *common) Skip(args ...any) {",
	"Skipf":   "func (c *common) Skipf(format string, args ...any) {",
	"SkipNow": "func (c *common) SkipNow() {",
	"Fail":    "func (c *common) Fail() {",
	"FailNow": "func (c *common) FailNow() {",
})...)

// testingUseSites hooks the first line of each method: the method's constant
// (goweaveTMethod in _patch/testing) tells the analysis what the use was.
func testingUseSites(methods map[string]string) []site {
	var out []site
	for _, m := range []string{"Log", "Logf", "Error", "Errorf", "Fatal", "Fatalf", "Skip", "Skipf", "SkipNow", "Fail", "FailNow"} {
		line := methods[m]
		out = append(out, site{"testing/testing.go", "(*common)." + m, "", line,
			line + " goweaveUse(c, goweaveT" + m + ", sys.GetCallerPC())"})
	}
	return out
}
