#!/usr/bin/env bash
# Tests of run.sh's report_lines (the baseline scored like goweave: does its first failure
# report name a bug line?) on small go test logs, and of explain_result (a finding at a fixed
# commit counted as a real leftover of the fix only when a kept reproduction failed). No Go, no
# network: `bash report_test.sh`.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=run.sh
. "$here/run.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
# expect NAME LOG LINES WANT: report_lines's "kind goroutines at_lines" must be WANT.
expect() {
  local got
  got=$(report_lines "$2" "$3" | jq -r '"\(.kind) \(.goroutines) \(.at_lines)"')
  if [ "$got" = "$4" ]; then echo "ok   $1"; else echo "FAIL $1: got '$got', want '$4'"; fails=$((fails + 1)); fi
}

# A race report names the line; a bug line in a later report does not count.
cat >"$t/race.log" <<'L'
==================
WARNING: DATA RACE
Write at 0x00c000 by goroutine 8:
  example.com/m.(*P).stop()
      /tmp/w/parent/pool.go:355 +0x44
Previous read at 0x00c000 by goroutine 7:
  example.com/m.(*P).Stopped()
      /tmp/w/parent/pool.go:216 +0x3a
==================
--- FAIL: TestA (0.01s)
    testing.go:1490: race detected during execution of test
panic: send on closed channel

goroutine 9 [running]:
example.com/m.(*P).send()
	/tmp/w/parent/pool.go:400 +0x1
L
expect "race report at the lines" "$t/race.log" "pool.go:216" "race 0 true"
expect "a line only in a later panic" "$t/race.log" "pool.go:400" "race 0 false"
expect "pool.go:21 is not pool.go:216" "$t/race.log" "pool.go:21" "race 0 false"

# A test's panic: its --- FAIL line, then the panicking goroutine; other goroutines do not count.
cat >"$t/panic.log" <<'L'
--- FAIL: TestB (0.00s)
panic: send on closed channel [recovered]
	panic: send on closed channel

goroutine 7 [running]:
testing.tRunner.func1.2({0x5, 0x6})
	/usr/local/go/src/testing/testing.go:1734 +0x21c
example.com/m.(*C).queue(...)
	/tmp/w/parent/consumer.go:1385
example.com/m.TestB(0xc0)
	/tmp/w/parent/consumer_test.go:20 +0x1

goroutine 8 [chan receive]:
example.com/m.(*C).loop()
	/tmp/w/parent/consumer.go:270 +0x1
L
expect "panicking goroutine at the lines" "$t/panic.log" "consumer.go:1385" "panic 1 true"
expect "another goroutine of the panic" "$t/panic.log" "consumer.go:270" "panic 1 false"

# A timeout's dump counts up to DUMP_MAX goroutines.
{
  printf 'panic: test timed out after 3m0s\n\trunning tests:\n\t\tTestC (3m0s)\n\n'
  for i in 1 2 3; do printf 'goroutine %d [chan send]:\nexample.com/m.(*Cache).Close()\n\t/tmp/w/parent/cache.go:131 +0x6e\n\n' "$i"; done
  printf 'FAIL\texample.com/m\t180.2s\n'
} >"$t/hang.log"
expect "small hang dump at the lines" "$t/hang.log" "cache.go:131" "hang 3 true"
DUMP_MAX=2 expect "hang dump too big" "$t/hang.log" "cache.go:131" "hang 3 false"

# A plain failure: its messages (a recovered panic's stack printed by the test among them).
cat >"$t/fail.log" <<'L'
--- FAIL: TestD (1.01s)
    d_test.go:26: Got panic: nil pointer dereference
        singleflight.(*Group).doCall(0xc0)
        	/tmp/w/parent/singleflight/singleflight.go:97 +0x5c
--- FAIL: TestE (0.00s)
    e_test.go:3: at /tmp/w/parent/singleflight/singleflight.go:59 
FAIL
L
expect "failure message at the lines" "$t/fail.log" "singleflight/singleflight.go:97" "fail 0 true"
expect "a line of the second failure" "$t/fail.log" "singleflight/singleflight.go:59" "fail 0 false"
printf 'ok  \texample.com/m\t1.2s\n' >"$t/pass.log"
expect "no failure" "$t/pass.log" "cache.go:131" "none 0 false"

# explain_result (leftovers.sh): a finding on the bug's code at the fix is a real leftover only
# when a reproduction of its bug failed with its signature, and the finding has one of its kinds
# and a position at one of its lines; the table counts the others as unexplained.
mkdir -p "$t/lo"
cat >"$t/lo/a.json" <<'J'
{"name": "a", "bug": "b1", "patch": "a.patch", "test": "TestA", "upstream": "u", "runs": 20,
 "failed": 20, "reproduced": 18, "date": "d", "kinds": ["deadlock"], "lines": ["pool.go:244"]}
J
cat >"$t/lo/z.json" <<'J'
{"name": "z", "bug": "b1", "patch": "z.patch", "test": "TestZ", "upstream": "u", "runs": 20,
 "failed": 3, "reproduced": 0, "date": "d", "kinds": ["data-race"], "lines": ["pool.go:9"]}
J
cat >"$t/b1.json" <<'J'
{"id": "b1", "class": "deadlock", "at_parent": {"found": "lines", "at_lines": [], "elsewhere": []},
 "baseline": {"parent": null, "fixed": null},
 "at_fix": {"elsewhere": [], "on_bug_code": [
  {"kind": "deadlock", "at": "pool.go:69", "where": ["pool.go:244", "pool.go:69"]},
  {"kind": "deadlock", "at": "pool.go:70"},
  {"kind": "leak-chan", "at": "pool.go:244"},
  {"kind": "data-race", "at": "pool.go:9"}]}}
J
# expect_marks NAME WANT: the findings' leftover marks, the unexplained count and the table's cell.
expect_marks() {
  local got
  got=$(jq -r '[.at_fix.on_bug_code[] | .leftover // "-"] + [.at_fix.unexplained] | map(tostring) | join(" ")' "$t/b1.json")
  if [ "$got" = "$2" ]; then echo "ok   $1"; else echo "FAIL $1: got '$got', want '$2'"; fails=$((fails + 1)); fi
}
LEFTOVER_OUT=$t/lo explain_result "$t/b1.json"
expect_marks "a related position, its kind, reproduced" "a - - - 3"
got=$(table "$t/b1.json" | sed -n 3p | awk -F' [|] ' '{print $NF}')
want='3 / 0; real leftover, reproduced: patch a.patch, fails 18/20 under go test -race |'
if [ "$got" = "$want" ]; then echo "ok   table cell"; else echo "FAIL table cell: got '$got', want '$want'"; fails=$((fails + 1)); fi
jq '.at_fix.on_bug_code[1].where = ["pool.go:244"]' "$t/b1.json" >"$t/b1.tmp" && mv "$t/b1.tmp" "$t/b1.json"
LEFTOVER_OUT=$t/lo explain_result "$t/b1.json"
expect_marks "remarked from the store" "a a - - 2"
rm "$t/lo/a.json"
LEFTOVER_OUT=$t/lo explain_result "$t/b1.json"
expect_marks "no reproduction, no mark" "- - - - 4"
# A test-only leak (the test made the object and never closed it) is counted apart, never as
# unexplained, and the table says so.
jq '.at_fix.on_bug_code[2].test_only = true' "$t/b1.json" >"$t/b1.tmp" && mv "$t/b1.tmp" "$t/b1.json"
LEFTOVER_OUT=$t/lo explain_result "$t/b1.json"
expect_marks "a test-only leak is not unexplained" "- - - - 3"
got=$(table "$t/b1.json" | sed -n 3p | awk -F' [|] ' '{print $NF}')
want='3 / 0; 1 test-only (a leak the test made, warning) |'
if [ "$got" = "$want" ]; then echo "ok   table cell, test-only"; else echo "FAIL table cell, test-only: got '$got', want '$want'"; fails=$((fails + 1)); fi

[ "$fails" = 0 ] || exit 1
