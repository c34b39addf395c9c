# shellcheck shell=bash disable=SC2154 # nice_cmd, goflags, gw, gw_commit, COUNT, OUT: run.sh
# Sourced by run.sh: the "existing" mode. Would goweave have caught the bug from the module's
# own tests, before the fix? A bug that shipped passed the module's CI, so no patch is applied:
# the package's whole existing test suite runs at the parent, under goweave and under
# `go test -race -count=$COUNT` (the user's baseline); goweave runs at the fix only when it
# found the bug at the parent (no finding may remain on the bug's code there).
#
# Budget: goweave's -time is per test (a campaign takes about tests x -time / -p), so one
# total budget $EXISTING_BUDGET (seconds of runs per commit, default 90) is shared out:
# -time = max($EXISTING_MIN_TIME ms, EXISTING_BUDGET x P / tests), P the number of test
# processes (nproc). Tests slower than that share borrow the time past it (fuzzer/campaign/
# budget.go: up to tests x -time in all, so up to twice the budget), so a hard wall of
# 2 x EXISTING_BUDGET + $EXISTING_BUILD seconds (default 150: the build of the tests with the
# patched runtime under load) stops goweave with SIGTERM; it then
# reports what it found, and the result says how many of the tests it reached. The baseline
# runs with -timeout $BASE_TIMEOUT (default 150s in this mode): a test still running past half
# of it (at least 60 s) when it fires is a hang, a failure; otherwise the suite was cut by the
# timeout (too slow for $COUNT iterations), and the iterations completed are reported.

EXISTING_BUDGET=${EXISTING_BUDGET:-90}
EXISTING_BUILD=${EXISTING_BUILD:-150}
EXISTING_MIN_TIME=${EXISTING_MIN_TIME:-1000}

# baseline_all DIR PKG OUTLOG LINES: go test -race -count=COUNT -v over the whole package;
# prints what failed as JSON: the tests that failed and in how many of their runs, whether a
# data race, a panic or a hang was reported, whether the output names one of the bug's LINES.
baseline_all() {
  local dir=$1 pkg=$2 out=$3 lines=$4 rc=0 t0=$SECONDS to=${BASE_TIMEOUT:-150s}
  (cd "$dir" && "${nice_cmd[@]}" go test -race -vet=off -v -count="$COUNT" -timeout "$to" "$pkg") \
    >"$out" 2>&1 || rc=$?
  local re
  re=$(line_regexps "$lines")
  # Top-level results only (subtests are indented); a test's runs are its PASS/FAIL/SKIP lines.
  local results
  results=$(sed -n 's/^--- \(PASS\|FAIL\|SKIP\): \([^ ]*\) .*/\1 \2/p' "$out" |
    jq -R -s 'split("\n") | map(select(. != "") | split(" ")) | group_by(.[1])
      | map({test: .[0][1], runs: length, failed: (map(select(.[0] == "FAIL")) | length)})')
  # The timeout's panic lists the tests running then: "\t\tTestX (2m28s)".
  local running
  running=$(sed -n '/^panic: test timed out after/,/^$/s/^[[:space:]]\+\(Test[^ ]*\) (\(.*\))$/\1 \2/p' "$out" |
    jq -R -s 'split("\n") | map(select(. != "") | split(" ") | {test: .[0], ran: .[1]})')
  jq -n --argjson exit "$rc" --argjson s $((SECONDS - t0)) --argjson results "$results" \
    --argjson running "$running" --arg to "$to" \
    --argjson build "$(grep -c -e '\[build failed\]' -e '\[setup failed\]' "$out" || true)" \
    --argjson races "$(grep -c 'WARNING: DATA RACE' "$out" || true)" \
    --argjson ginkgo "$(grep -c 'Ginkgo does not support using go test -count' "$out" || true)" \
    --argjson timedout "$(grep -c '^panic: test timed out after' "$out" || true)" \
    --argjson panics "$(grep '^panic: ' "$out" | grep -vc '^panic: test timed out after' || true)" \
    --argjson atlines "$(if [ -n "$re" ] && grep -qE "$re" "$out"; then echo true; else echo false; fi)" \
    --argjson report "$(report_lines "$out" "$lines")" \
    --arg first "$(grep -m 1 -e '^--- FAIL' -e 'WARNING: DATA RACE' -e '^panic:' -e 'all goroutines are asleep' "$out" || true)" '
    # A duration as go prints it (1m58s, 59.5s) in seconds.
    def secs: (capture("^((?<m>[0-9]+)m)?((?<s>[0-9.]+)s)?$") // {}) | ((.m // "0" | tonumber) * 60 + (.s // "0" | tonumber));
    ($to | secs) as $limit
    | ($running | map(select((.ran | secs) >= ([60, $limit / 2] | min)))) as $hung
    | {exit: $exit, seconds: $s, timeout: $to,
       iterations: ([$results[].runs] | max // 0),
       failed_tests: ($results | map(select(.failed > 0)) | map({test, failed, runs})),
       races: $races, panics: $panics, timed_out: ($timedout > 0),
       hung: ($hung | map(.test)), running_at_timeout: $running,
       at_lines: $atlines, first: $first, report: $report,
       # A Ginkgo suite ends the test binary after its first iteration under -count > 1.
       ginkgo_count: ($ginkgo > 0)}
    | .failed = (if $build > 0 then null
                 else ((.failed_tests | length) > 0 or $races > 0 or $panics > 0 or ($hung | length) > 0) end)'
}

# fuzz_all DIR PKG OUTJSON TIME WALL: goweave over every test of PKG, -time TIME per test,
# stopped with SIGTERM after WALL seconds; the -v log goes to OUTJSON.log as in fuzz; prints
# the exit status.
fuzz_all() {
  fuzz_logged "$1" "$3" timeout -s TERM -k 30 "$5" -- -time "$4" "$2"
}

# list_tests DIR PKG: how many tests and examples go test would run in PKG (0 when it does not
# build).
list_tests() {
  (cd "$1" && "${nice_cmd[@]}" go test -race -vet=off -list '.*' "$2" 2>/dev/null) |
    grep -cE '^(Test|Example|Fuzz)' || true
}

# per_test_time N: goweave's -time for N tests so that the campaign takes EXISTING_BUDGET s.
per_test_time() {
  local n=$1 p ms
  p=$(nproc 2>/dev/null || echo 1)
  [ "$n" -gt 0 ] || n=1
  ms=$((EXISTING_BUDGET * 1000 * p / n))
  [ "$ms" -ge "$EXISTING_MIN_TIME" ] || ms=$EXISTING_MIN_TIME
  echo "${ms}ms"
}

# fuzz_existing DIR PKG OUTJSON LOCS: lists the tests, runs goweave over them and prints the
# classification (classify) with the campaign's reach added.
fuzz_existing() {
  local dir=$1 pkg=$2 out=$3 locs=$4 n t rc
  n=$(list_tests "$dir" "$pkg")
  t=$(per_test_time "$n")
  log "$(basename "$(dirname "$dir")"): goweave over $n tests of $pkg in $(basename "$dir"), -time $t"
  rc=$(fuzz_all "$dir" "$pkg" "$out" "$t" $((2 * EXISTING_BUDGET + EXISTING_BUILD)))
  classify "$out" "$dir" "$locs" "$out.log" | jq --argjson n "$n" --arg t "$t" --argjson rc "$rc" \
    --slurpfile r "$out" '. + {exit: $rc,
      statuses: (reduce ($r[0].tests[]?.statuses // {} | to_entries[]) as $e ({}; .[$e.key] += $e.value)), time_per_test: $t, tests_listed: $n,
      tests_reached: ([$r[0].tests[]? | select(.runs > 0 or (.cutShort // 0) > 0)] | length),
      tests_no_run_finished: ([$r[0].tests[]? | select(.runs == 0)] | length),
      tests_unfinished: ([$r[0].unfinished[]?] | length), borrowed_s: ($r[0].budget.borrowedSeconds // null),
      stopped: ($rc == 124 or $rc == 137)}'
}

# export_plain GITDIR COMMIT DIR PATCH: DIR gets COMMIT's files, no test patch. A commit from
# before modules has no go.mod: the bug's PATCH adds one (and go.sum), the only part of it
# applied here (the module's own build files, no test).
export_plain() {
  export_tree "$1" "$2" "$3" "" && return
  [ -n "$4" ] || return 1
  (cd "$3" && git apply --include=go.mod --include=go.sum "$4") || return 1
  [ -f "$3/go.mod" ]
}

# run_existing BUGFILE: writes OUT/<id>.json; returns 1 when the bug could not be set up.
run_existing() {
  # shellcheck disable=SC2034 # bug and the keys are set by read_bug, some used only elsewhere
  local bug id repo fixed parent pkg test patch lines class kinds note source g w p f
  read_bug "$1"
  log "$id: existing tests: $repo parent ${parent:0:12} $pkg"
  g=$(gitdir "$repo")
  w=$WORK/$id
  p=$w/parent
  f=$w/fixed
  if ! export_plain "$g" "$parent" "$p" "$patch"; then
    log "$id: could not set up the parent's tree"
    return 1
  fi
  local bp pres fres=null fl stored=${STORED_EXISTING:-$here/results-existing}/$id.json
  # The baseline does not depend on goweave: with BASELINE=0 a stored result's is reused (its
  # date kept), and run only where none is stored.
  if [ "$BASELINE" = 0 ] && [ -f "$stored" ] && jq -e '.baseline.failed != null or .baseline.exit != null' "$stored" >/dev/null 2>&1; then
    log "$id: baseline reused from $stored"
    bp=$(jq '.baseline | del(.count) | .reused_from = (.reused_from // $date)' --arg date "$(jq -r .goweave.date "$stored")" "$stored")
  else
    log "$id: baseline at the parent"
    bp=$(baseline_all "$p" "$pkg" "$w/base-parent.log" "$lines")
  fi
  pres=$(fuzz_existing "$p" "$pkg" "$w/parent.json" "$lines")
  fl=$(fixlines "$g" "$parent" "$fixed" "$lines" | sort -u | tr '\n' ' ')
  if [ "$(jq -r .found <<<"$pres")" = lines ]; then
    if export_plain "$g" "$fixed" "$f" "$patch"; then
      fres=$(fuzz_existing "$f" "$pkg" "$w/fixed.json" "$fl" |
        jq --arg fl "$fl" '. + {bug_code: ($fl | split(" ") | map(select(. != "")))}
          | .on_bug_code = .at_lines | del(.at_lines)')
    else
      log "$id: could not set up the fix's tree"
    fi
  fi
  # Whether the bug's own test (the fix's regression test, or the existing one named) is in the
  # parent's suite: for most bugs it came with the fix.
  local has=false
  if grep -rqE "^func ($test)\(" "$p/${pkg#./}" --include='*_test.go' 2>/dev/null; then has=true; fi
  mkdir -p "$OUT"
  jq -n --arg id "$id" --arg repo "$repo" --arg parent "$parent" --arg fixed "$fixed" \
    --arg pkg "$pkg" --arg test "$test" --argjson has "$has" --arg lines "$lines" \
    --arg class "$class" --arg kinds "$kinds" --arg note "$note" --arg source "$source" \
    --arg gw "$gw_commit" --arg go "$(go version | cut -d' ' -f3)" \
    --arg date "$(date -u +%FT%TZ)" --argjson count "$COUNT" --argjson budget "$EXISTING_BUDGET" \
    --argjson pres "$pres" --argjson fres "$fres" --argjson bp "$bp" '
    {mode: "existing", id: $id, repo: $repo, parent: $parent, fixed: $fixed, pkg: $pkg,
     class: $class, expected_kinds: ($kinds | split(" ")), lines: ($lines | split(" ")),
     note: $note, source: $source, bug_test: $test, bug_test_at_parent: $has,
     goweave: {commit: $gw, go: $go, budget_s: $budget, date: $date},
     at_parent: ($pres | .expected_kind_at_lines = ([.at_lines[].kind] as $k | $kinds | split(" ") | any(.[]; . as $e | $k | index($e)))),
     at_fix: $fres, baseline: ({count: $count} + $bp)}' >"$OUT/$id.json"
  explain_result "$OUT/$id.json"
  log "$id: $(jq -r '"\(.at_parent.found) (\(.at_parent.tests_reached)/\(.at_parent.tests_listed) tests, -time \(.at_parent.time_per_test)) baseline=\(.baseline.failed) at-lines=\(.baseline.at_lines) fix-on-code=\(.at_fix.on_bug_code // [] | length)"' "$OUT/$id.json")"
}

# table_existing JSON...: the markdown table of the existing mode and its summary.
table_existing() {
  jq -rs "$leftover_jq"'
    def s: if . == null then "-" else "\(. * 10 | round / 10) s" end;
    def kinds: map("\(.kind) (\(.confidence))") | unique | join(", ");
    def gwfound: .at_parent.found == "lines";
    # The first failure'"'"'s report names a bug line (report_lines); a baseline stored before the
    # report existed has only at_lines (any line of the output), which bounds it from above.
    def blines: .baseline | if .report != null then .report.at_lines else .at_lines end;
    def bfound: blines and .baseline.failed == true;
    def base: .baseline | if .failed == null then "did not build"
      elif .failed | not then "passed (\(.iterations) it.\(if .timed_out then ", cut" elif .ginkgo_count // false then ", Ginkgo refuses -count" elif .exit != 0 then ", exit \(.exit)" else "" end))"
      else ([.failed_tests[] | "\(.test) \(.failed)/\(.runs)"] + (if (.hung | length) > 0 then ["hang: \(.hung | join(", "))"] else [] end)
            + (if .races > 0 then ["\(.races) race reports"] else [] end)
            + (if .panics > 0 then ["panic"] else [] end)) as $w
        | "failed: \($w[0:3] | join("; "))\(if ($w | length) > 3 then "; +\(($w | length) - 3)" else "" end)\(if (.report.source // "") | startswith("rerun") then " (\(if .at_lines then "a bug line in the output; " else "" end)a rerun'"'"'s first report: \(.report.kind), \(if .report.at_lines then "**at the lines**" else "no bug line" end))" elif .report != null then (if .report.at_lines then " **at the lines** (first report: \(.report.kind))" elif .at_lines then " (a bug line later in the output)" else "" end) elif .at_lines then " **at the lines** (anywhere in the output)" else "" end)" end;
    (length) as $n
    | "| bug | class | tests reached / listed, -time per test | goweave at the parent | kinds found | first finding | `go test -race -count=20` at the parent (failed runs / runs) | at the fix: on the bug'"'"'s code, unexplained / elsewhere |",
      "|---|---|---|---|---|---|---|---|",
      (.[] | "| \(.id) | \(.class) | \(.at_parent.tests_reached)/\(.at_parent.tests_listed)\(if (.at_parent.tests_no_run_finished // 0) > 0 then " (\(.at_parent.tests_no_run_finished) no run finished)" else "" end), \(.at_parent.time_per_test)\(if .at_parent.stopped then ", stopped" else "" end) | \(.at_parent.expected_kind_at_lines as $x | .at_parent.found | if . == "lines" then "**found at the lines**\(if $x then "" else " (no expected kind)" end)" elif . == "elsewhere" then "found elsewhere" else "missed" end) | \((.at_parent.at_lines | kinds) as $k | if $k == "" then (.at_parent.elsewhere | kinds) else $k end) | \(.at_parent.first_at_lines_s | s) | \(base) | \(if .at_fix == null then "-" else "\(unexplained) / \(.at_fix.elsewhere | length)\(leftover_text | if . == "" then "" else "; \(.)" end)" end) |"),
      "",
      ([.[] | select(gwfound)] | length) as $l
    | ([.[] | select(bfound)] | length) as $b
    | ([.[] | select(.baseline.failed == true)] | length) as $bany
    | ([.[] | select(gwfound and (bfound | not)) | .id]) as $go
    | ([.[] | select(bfound and (gwfound | not)) | .id]) as $bo
    | ([.[] | select(gwfound and .at_fix != null and unexplained == 0)] | length) as $clean
    | ([.[] | .at_parent.first_at_lines_s | values] | sort) as $t
    | "Bugs run: \($n). goweave found at the bug'"'"'s lines: \($l)/\($n); found anything: \([.[] | select(.at_parent.found != "missed")] | length)/\($n). "
      + "`go test -race -count=20` at the parent: a failure whose first report names a bug line \($b)/\($n) "
      + "(a bug line anywhere in the output \([.[] | select(.baseline.at_lines and .baseline.failed == true)] | length)/\($n)), any failure \($bany)/\($n). "
      + "Of goweave'"'"'s \($l) at the lines, with an expected kind: \([.[] | select(gwfound and .at_parent.expected_kind_at_lines)] | length). "
      + "goweave only: \($go | length)\(if ($go | length) > 0 then " (\($go | join(", ")))" else "" end); "
      + "baseline only: \($bo | length)\(if ($bo | length) > 0 then " (\($bo | join(", ")))" else "" end). "
      + "Found at the lines and nothing unexplained on the bug'"'"'s code at the fix: \($clean)/\($l)"
      + "\([.[] | explained] | add // 0 | if . > 0 then " (real leftovers of the fixes, reproduced, counted apart: \(.))" else "" end). "
      + "Time to the first finding at the lines: median \(if ($t | length) > 0 then $t[($t | length - 1) / 2 | floor] | s else "-" end)"
      + "\(if ($t | length) > 0 then ", \($t[0] | s) to \($t[-1] | s)" else "" end). "
      + "The bug'"'"'s own test was in the parent'"'"'s suite for \([.[] | select(.bug_test_at_parent)] | length)/\($n)."' "$@"
}
