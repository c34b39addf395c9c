package analysis

// Kinds reported from how runs ended rather than from one trace: goweave fuzz reads them
// from the test's output (fuzzer/campaign/outcome.go) and weighs them against the test's
// other runs. The detectors here only document them; like data-race, they find nothing in
// a trace.

var FlakyPanic = &Detector{
	Name: "flaky-panic",
	Doc: `A test that panics in some runs and passes in others: the panic depends on the schedule.

Reported at the panicking line (the innermost frame of the panicking goroutine in your
module; below a deferred function that recovered the panic and raised it again, the frame
where it was first raised), with its callers as related positions, the panic message, how many runs panicked,
and, where the traces show it, the operations that ran in another order than in a passing
run (a Lock that overtook another, or one that had not run yet when it panicked). Typical causes: an order violation (a goroutine uses a field before another
initialises it, a nil dereference), an index out of range on a slice another goroutine
shrinks, a send on a channel closed early. When a detector names the cause (send-on-closed,
negative-waitgroup, ...), the panic is reported as part of that finding instead. A test that recovers a panic and
fails with its stack (t.Fatalf with debug.Stack(), testify's NotPanics) reports one too, at
the line of your module the stack names, the test's failure line related. A panic
in a dependency's goroutine (no frame in your module) is reported at the test's declaration,
naming the function and line that panicked; so is a fatal error of the runtime other than a
map's ("sync: unlock of unlocked mutex"), at its line in your module. The
replay recipe reruns the schedule of a run that panicked. Fix the ordering: initialise
before starting the goroutine, or make the user wait for the initialisation (a channel,
sync.Once, a WaitGroup).`,
	Run: func(r *Result) []Finding { return nil },
}

var FlakyFailure = &Detector{
	Name: "flaky-failure",
	Doc: `A test that fails (t.Error, t.Fatal) in some runs and passes in others: its result depends on the schedule.

Reported at the last line the test logged before it failed (t.Fatal's, or the last
t.Error's), with the message, how many runs failed, and the operations that ran in another
order than in a passing run, where the traces show them. A test that failed without a t.Error
line (an assertion library that prints with fmt.Printf and calls t.FailNow) is reported at
the last file.go:N its output names, else at the test's declaration, with what it printed
last. The message is what went wrong, not an assertion library's decoration: testify's
Error field with its expected and actual values, gomega's Expected/to equal lines, the first
lines of a diff after a message ending in a colon, goconvey's first failed assertion (at its
own line; "Expected: 5, Actual: 3 (Should equal)") or panic, and for goleak the number of
unexpected goroutines and the function on top of each. A test that exits before it ends
(os.Exit, log.Fatal) or whose TestMain fails the process after it passed (goleak's
VerifyTestMain) is one too, with what it printed last. The usual cause is an assertion on
state that concurrent goroutines have not finished updating (a missing wait), or on an
order the program does not guarantee. The replay recipe reruns the schedule of a run that
failed. Fix the test's synchronisation, or the program's, so that the asserted state holds
in every schedule.

An Example whose output differs between runs is one too, reported at the Example's
declaration with its // Output: line as a related position and the first line that
differed. A test that fails in every run is not a flaky failure: goweave fuzz reports it as
an error naming the failure (exit status 2), and stops fuzzing it after a few runs when it
fails without goweave's scheduling as well, saying whether plain go test fails it too. Nor is
a test that passes and then fails in every later run: it depends on state an earlier run left
behind (a database, a file), not on the schedule, and goweave fuzz reports that as an error
(go test -count=2 shows it).

goweave fuzz runs up to -p processes of a package's test binary at once; go test runs one.
Tests that share a file in the package directory, or another resource, between processes then
fail for no schedule of the program. So a failure of a run that overlapped another process of
its package counts only once some run of the package has failed alone: until then the run is
set aside ("discarded" in the JSON), its schedule runs again alone first, and the package's
runs go one at a time. The first lone failure makes the package's failures count and its runs
overlap again; a campaign that ends with the package one at a time says so in a warning.

Timing-dependent: a test that waits for a goroutine by the clock (a time.Sleep, a timer, a
context's deadline) fails when that goroutine is slower than the wait, as goweave's schedule
makes it. When every failing run shows a wait expiring while the schedule held another
goroutine, the finding says so, naming the wait and the held goroutine, and is a warning that
sets no exit status 1 ("timing" in the JSON and the SARIF): the test, not the module's
synchronisation, is at fault. Fix it by waiting for the goroutine (a channel, a WaitGroup)
instead of the clock. The same holds for flaky-panic. A select that goweave held for its
clock's case (a timer, a ticker, a context's Done) while another case was ready counts too:
a goroutine that slow finds both ready; so does a time.After already expired when its select
first looked while another case was ready (the machine delayed the goroutine), and a
context's deadline that expired while goweave held a goroutine feeding one the deadline
stopped. A wall-clock assertion (the failure's message reports a measured duration over the
bound it states: testify's WithinDuration, a time.Since check) is timing-dependent when
goweave held one goroutine for at least the overrun within the measured span, or when the
measurement spans the test's own time.Sleep after which it waited for nothing (the
machine's delay). A deadlock is timing-dependent only when every
operation it names, and the time.Sleep the test waited with, are written in the Test function
itself (a timeout path of the code under test that deadlocks when a goroutine is late is a
bug), and never because a timer fired; a send or close on a closed channel never is.

A select's random choice: when more than one case of a select is ready, Go takes one at
random. When the failing runs all (or at least 90% of them, and at least 4) took one case
of a select while another was ready, at most 10% of the passing runs did, and those failing
runs and the passing runs that took another case while it was ready number at least 10,
the finding names that select and both cases ("cause: the
select at pool.go:214 took case 1 (` + "`<-p.ch`" + `, line 215) while case 2 (` + "`<-ctx.Done()`" + `,
line 216) was ready too in all 226 failing runs, ..."), with the select and its cases as
related positions. Only the choices a run made before the test first reported a failure
count. The replay recipe of such a failure prefers the failing case. Fix the select: check
the condition that must win first (if ctx.Err() != nil before the select), or make one case
impossible while the other holds. The same holds for flaky-panic.`,
	Run: func(r *Result) []Finding { return nil },
}

var Hang = &Detector{
	Name: "hang",
	Doc: `A test that did not finish within its time limit (-timeout) in at least two runs and at least half of its runs, without a proof of what blocks it (fewer timed-out runs are a note per test in the campaign's warnings, not a finding: a test slower than the limit on a loaded machine looks the same).

Reported at the test goroutine's position in the goroutine dump taken at the time limit
(where it waited or spun), with the other goroutines of your module as related positions.
The runtime's deadlock check misses these: a goroutine that still runs or sleeps (a
ticker, a retry loop, a background worker) keeps the process alive while the test waits
forever, and a loop that never exits never blocks at all. At the time limit goweave has the
process run the GC's leak detection (Go 1.26 and later) before it ends: goroutines blocked
on something no live goroutine or global can reach are reported as the leak they are
(leak-chan, ...), and goroutines blocked in a lock cycle as a deadlock, with the hang as
part of that finding; so is a hang whose trace shows the whole run stuck (deadlock). A hang
alone means no goroutine could be proven stuck: something may still wake it. A run still
making progress at its time limit (operations recorded, CPU used, a timer pending) is slow,
not hung: it goes on up to a cap and is a warning that names the test and a -timeout to
use, never a hang; a run the runtime finds stuck by its state (every goroutine blocked, a
lock cycle, the test goroutine proven leaked) ends at once, as a deadlock or a leak, without
waiting for the time limit. A test that finishes in some runs is not reported as a hang.`,
	Run: func(r *Result) []Finding { return nil },
}
