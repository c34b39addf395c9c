#!/usr/bin/env bash
# Fixed-bug benchmark (issue 21): would goweave have found a concurrency bug that shipped in a
# real module, from the module's own test, before the fix? Layout: eval/fixedbugs/README.md.
#
# Usage:
#   run.sh [run] [BUG.bug ...]   run the given bugs (default: every bugs/*.bug beside this script)
#                                and write OUT/<id>.json for each
#   run.sh table [FILE.json|DIR ...]
#                                print the markdown table and its summary (default: OUT/*.json)
#   run.sh existing [BUG.bug ...]
#                                no patch: the package's whole existing test suite at the parent
#                                under goweave and `go test -race -count=$COUNT`, at the fix
#                                when goweave found the bug; OUT/<id>.json, OUT default
#                                results-existing/ (existing.sh says how the budget is shared)
#   run.sh table existing        the table of results-existing/*.json (a directory or files of
#                                the existing mode print its table)
#   run.sh report BUG.bug [LOG]  whether the baseline's first failure report names the bug's
#                                lines (report_lines), for OUT/<id>.json: from LOG, a kept log of
#                                that baseline at the parent, or else from a rerun of it; merged
#                                as .baseline.parent.report (.baseline.report in the existing
#                                mode) with its source
#   run.sh leftovers [L.leftover ...]
#                                measure the reproductions of real leftovers of the fixes
#                                (default: every leftovers/*.leftover; leftovers.sh) into
#                                results/leftovers/<name>.json, then mark the findings they explain
#                                in OUT/<bug>.json and results-existing/<bug>.json
#   run.sh explain [FILE.json ...]
#                                mark them from the measured reproductions, none rerun
#                                (default: results/*.json and results-existing/*.json)
#   run.sh smoke                 a fast slice for CI: $SMOKE_BUGS at TIME=10s, no baseline, into a
#                                temp dir; exit 1 unless each is found at its lines at the parent
#                                and nothing is found on its code at the fix
#
# For each bug: the repository's git dir is taken from $GOWEAVE_EVAL_MIRROR (or
# $GOWEAVE_EVAL_REPOS, or /work/.mirror), as <dir>/<owner>+<name> or <dir>/<owner>+<name>/repo
# (what the search tool's fetch verb makes), else cloned from GitHub once into $WORK. The parent
# and the fixed commit are exported (git archive: the git dir is only read) into temp trees under
# $WORK, the bug's patch (<bugdir>/../patches/<patch>) is applied to both (at the fix, not when it
# is already there: the fix's own regression test), then
#   goweave fuzz -json -v -time $TIME -run '^(<test>)$' <pkg>      at the parent and at the fix
#   go test -race -count=$COUNT -run '^(<test>)$' <pkg>            at the parent and at the fix
# (both with -vet=off: the newer toolchain's vet rejects some old test files), and the result
# is classified: a finding (severity error or warning; a refuted "hint" does not
# count) with any position at one of the bug's lines is "found at the lines"; another finding,
# or a test failing in every run, is "found elsewhere"; none is "missed". At the fix a finding is
# "on the bug's code" when it is at a bug line mapped through the fix's diff or at a line the fix
# changed (outside _test.go files); such a finding that a kept reproduction shows to be a real
# bug the fix left (leftovers.sh) is counted apart from the unexplained ones, which the target
# is judged by, and so is a test-only leak (test_only: an object the test made and never
# closed, a warning about the test, not a claim about the module's code). Time to the first finding is from the campaign's start (build
# included) to the -v line of the run that found it first.
#
# Environment:
#   TIME      goweave's time budget per test (default 45s)
#   COUNT     go test -count of the baseline (default 20); BASELINE=0 skips the baseline;
#             (in the existing mode: reuses a stored one, see STORED_EXISTING);
#             BASE_TIMEOUT its -timeout (default 180s: a hang is a failure)
#   OUT       results directory (default: results/ beside this script)
#   WORK      scratch directory (default: a new temp dir, removed at exit unless KEEP=1)
#   GOWEAVE   a goweave binary to use (default: built from the checkout this script lives in);
#             GOWEAVE_COMMIT the commit it was built from (default: this checkout's HEAD)
#   STORED_EXISTING  the existing mode's stored results whose baselines BASELINE=0 reuses
#             (default: results-existing/ beside this script; bugs with none run the baseline)
#   AT        "fix": goweave at the fix only; the parent's campaign is kept from the stored
#             result ($STORED/<id>.json, STORED default results/ beside this script), and with
#             BASELINE=0 its baselines too (default: both commits)
#   LEFTOVER_RUNS, LEFTOVER_TIMEOUT  runs of each leftover's reproduction (default 20) and
#             the -test.timeout of each (default 180s); LEFTOVER_OUT where the measured ones
#             are kept (default results/leftovers beside this script)
#   NICE      prefix for the heavy commands (default: nice -n 10)
#   SMOKE_BUGS  the bug ids of the smoke slice
#   EXISTING_BUDGET, EXISTING_BUILD, EXISTING_MIN_TIME  the existing mode's budget (existing.sh)
#
# Needs: git, go, jq. Exit status: 0, or 1 when a bug could not be set up (the others still run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
TIME=${TIME:-45s}
COUNT=${COUNT:-20}
BASELINE=${BASELINE:-1}
AT=${AT:-both}
out_given=${OUT:+1}
OUT=${OUT:-$here/results}
read -r -a nice_cmd <<<"${NICE:-nice -n 10}"
# The smoke slice: small modules without dependencies, a deadlock and a data race that the
# full runs found at run 1.
SMOKE_BUGS=${SMOKE_BUGS:-sync-semaphore-cancel-lost-wakeup pond-stopped-flag-race}

# go vet, which go test runs while building, rejects old test files that the newer toolchain's
# vet knows more about (client_golang's Examples at 59c00e3e): the tests themselves build.
goflags="${GOFLAGS:+$GOFLAGS }-vet=off"

log() { printf '[fixedbugs %s] %s\n' "$(date -u +%T)" "$*" >&2; }
die() {
  log "error: $*"
  exit 2
}

command -v jq >/dev/null || die "jq is needed"

setup_work() {
  if [ -z "${WORK:-}" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/goweave-fixedbugs.XXXXXX")
    if [ "${KEEP:-0}" != 1 ]; then
      trap 'chmod -R u+w "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
    fi
  fi
  mkdir -p "$WORK"
}

# build_goweave: sets $gw (a binary) and $gw_commit.
build_goweave() {
  # GOWEAVE_COMMIT: what $GOWEAVE was built from, when this script runs from a copy.
  gw_commit=${GOWEAVE_COMMIT:-$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)}
  if [ -n "$(git -C "$root" status --porcelain -- . ':!eval' 2>/dev/null)" ]; then
    gw_commit="$gw_commit+dirty"
  fi
  if [ -n "${GOWEAVE:-}" ]; then
    gw=$GOWEAVE
    return
  fi
  gw=$WORK/goweave
  log "building goweave from $root ($gw_commit)"
  (cd "$root" && go build -o "$gw" ./cmd/goweave)
}

# bugkey FILE KEY: the value of "KEY: value" in a .bug file (empty when absent).
bugkey() {
  sed -n "s/^$2:[[:space:]]*//p" "$1" | head -n 1 | sed 's/[[:space:]]*$//'
}

# read_bug BUGFILE: sets bug (its absolute path), id and the .bug file's keys: repo, fixed,
# parent, pkg, test, lines, class, kinds, note, source, and patch (the patch file's path, empty
# when the bug has none).
read_bug() {
  bug=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  id=$(basename "$bug" .bug)
  local k
  for k in repo fixed parent pkg test patch lines class kinds note source; do
    printf -v "$k" '%s' "$(bugkey "$bug" "$k")"
  done
  [ -z "$patch" ] || patch=$(dirname "$bug")/../patches/$patch
}

# gitdir OWNER/NAME: prints a git dir holding the repository, cloning it when no mirror has it.
gitdir() {
  local repo=$1 flat=${1/\//+} d
  for d in "${GOWEAVE_EVAL_MIRROR:-}" "${GOWEAVE_EVAL_REPOS:-}" /work/.mirror; do
    [ -n "$d" ] || continue
    if [ -d "$d/$flat/repo" ]; then
      echo "$d/$flat/repo"
      return
    fi
    if [ -d "$d/$flat" ] && git --git-dir="$d/$flat" rev-parse --git-dir >/dev/null 2>&1; then
      echo "$d/$flat"
      return
    fi
    if [ -d "$d/$flat/.git" ]; then
      echo "$d/$flat/.git"
      return
    fi
  done
  d=$WORK/clones/$flat.git
  if [ ! -d "$d" ]; then
    log "cloning github.com/$repo"
    git clone -q --bare "https://github.com/$repo" "$d" >&2
  fi
  echo "$d"
}

# export_tree GITDIR COMMIT DIR PATCH: DIR gets COMMIT's files with PATCH (may be empty) applied.
export_tree() {
  rm -rf "$3"
  mkdir -p "$3"
  git --git-dir="$1" archive "$2" | tar -x -C "$3"
  # A patch of the fix's own regression test is already in the fixed commit: applied reversed
  # cleanly, it is skipped there.
  if [ -n "$4" ] && ! (cd "$3" && git apply -R --check "$4" 2>/dev/null); then
    (cd "$3" && git apply "$4")
  fi
  [ -f "$3/go.mod" ] || return 1
}

# fixlines GITDIR PARENT FIXED LINES: prints "file:line" for every line of the fixed commit that
# is the bug's code: each of LINES (parent's file:line) mapped through the fix's diff (a line the
# fix replaced maps to the whole replacement), and every line the fix added outside _test.go.
fixlines() {
  local g=$1 p=$2 f=$3 loc file line
  git --git-dir="$g" diff -U0 "$p" "$f" -- '*.go' ':!*_test.go' | awk '
    /^\+\+\+ b\// { file = substr($0, 7) }
    /^@@/ { split($3, n, ","); c = substr(n[1], 2) + 0; d = (n[2] == "" ? 1 : n[2] + 0);
            for (i = 0; i < d; i++) print file ":" (c + i) }'
  for loc in $4; do
    file=${loc%:*}
    line=${loc##*:}
    git --git-dir="$g" diff -U0 "$p" "$f" -- "$file" | awk -v L="$line" -v F="$file" '
      /^@@/ { split($2, o, ","); a = substr(o[1], 2) + 0; b = (o[2] == "" ? 1 : o[2] + 0);
              split($3, n, ","); c = substr(n[1], 2) + 0; d = (n[2] == "" ? 1 : n[2] + 0);
              if (b > 0 && L >= a && L < a + b) { inside = 1; for (i = 0; i < (d > 0 ? d : 1); i++) print F ":" (c + i) }
              else if ((b == 0 && a < L) || (b > 0 && a + b - 1 < L)) shift += d - b }
      END { if (!inside) print F ":" (L + shift) }'
  done
}

# fuzz_logged DIR OUTJSON [PREFIX...] -- GOWEAVE_ARGS...: runs PREFIX goweave fuzz -json -v
# -fresh -o OUTJSON.gw GOWEAVE_ARGS in DIR; the JSON report goes to OUTJSON, the -v log (each
# line prefixed by its seconds since the start) to OUTJSON.log; prints the exit status.
fuzz_logged() {
  local dir=$1 out=$2 start rc=0 prefix=()
  shift 2
  while [ "$1" != -- ]; do
    prefix+=("$1")
    shift
  done
  shift
  start=${EPOCHREALTIME/./}
  (cd "$dir" && GOFLAGS=$goflags "${prefix[@]}" "${nice_cmd[@]}" "$gw" fuzz -json -v -fresh -o "$out.gw" \
    "$@" >"$out" 2> >(while IFS= read -r l; do
      t=$(((${EPOCHREALTIME/./} - start) / 100000))
      printf '%d.%d %s\n' $((t / 10)) $((t % 10)) "$l"
    done >"$out.log")) || rc=$?
  # The log's reader may still be writing.
  sleep 0.2
  [ -s "$out" ] || echo '{"findings":[],"tests":[],"errors":["no report"]}' >"$out"
  echo "$rc"
}

# fuzz DIR PKG TEST OUTJSON: runs goweave on one test (fuzz_logged).
fuzz() {
  fuzz_logged "$1" "$4" -- -time "$TIME" -run "^($3)\$" "$2"
}

# line_regexps LINES: an extended regexp matching any of LINES (file:line) at the end of a
# path in a stack trace or race report ("\t/abs/dir/pool.go:244 +0x1a4").
line_regexps() {
  local loc out=""
  for loc in $1; do
    loc=$(printf '%s' "$loc" | sed 's/[.[\*^$+?(){}|]/\\&/g')
    out="${out:+$out|}/$loc( |\$)"
  done
  printf '%s' "$out"
}

# first_report LOG: the text of the first failure's report in a go test log, what a user reads
# first: a race report (WARNING: DATA RACE to its closing =====), a panic or fatal error with
# the first goroutine's stack (the panicking one), a timeout's goroutine dump (every goroutine,
# to the FAIL line), or else the first --- FAIL line and its indented messages (a recovered
# panic's stack printed by the test is there). Its first line is the kind (race, panic, hang,
# fail, none) and the number of goroutine stacks in it.
first_report() {
  awk '
    function out(kind) { print kind, g + 0; printf "%s", buf; done = 1; exit }
    done { exit }
    mode == "" && /WARNING: DATA RACE/ { mode = "race"; buf = $0 "\n"; next }
    mode == "" && /^panic: test timed out after/ { mode = "hang"; buf = $0 "\n"; next }
    mode == "" && /^(panic: |fatal error: )/ { mode = "panic"; buf = $0 "\n"; next }
    mode == "" && /^--- FAIL/ { mode = "fail"; buf = $0 "\n"; next }
    mode == "race" { if (/^==================/) out("race"); buf = buf $0 "\n"; next }
    mode == "hang" { if (/^(FAIL|ok)[ \t]/) out("hang"); if (/^goroutine [0-9]+ \[/) g++; buf = buf $0 "\n"; next }
    mode == "panic" { if (/^goroutine [0-9]+ \[/) { if (g) out("panic"); g++ }
                      if (/^$/ && g) out("panic"); buf = buf $0 "\n"; next }
    # A failing test that panicked prints its --- FAIL line, then the panic.
    mode == "fail" { if (/^(panic: |fatal error: )/) { mode = "panic"; buf = buf $0 "\n"; next }
                     if (!/^(    |\t)/) out("fail"); buf = buf $0 "\n"; next }
    END { if (!done) { if (mode == "") print "none", 0; else { print mode, g + 0; printf "%s", buf } } }' "$1"
}

# report_lines LOG LINES: whether the first failure's report (first_report) names one of the
# bug's LINES, as JSON {kind, goroutines, at_lines}. A timeout's dump counts only up to
# $DUMP_MAX goroutines (default 50): in a dump of hundreds, every line of the package shows up.
report_lines() {
  local rep head re
  rep=$(first_report "$1")
  head=${rep%%$'\n'*}
  re=$(line_regexps "$2")
  jq -n --arg kind "${head% *}" --argjson g "${head##* }" --argjson max "${DUMP_MAX:-50}" \
    --argjson named "$(if [ -n "$re" ] && tail -n +2 <<<"$rep" | grep -qE "$re"; then echo true; else echo false; fi)" \
    '{kind: $kind, goroutines: $g, named: $named,
      at_lines: ($named and ($kind != "hang" or $g <= $max))}'
}

# baseline DIR PKG TEST OUTLOG LINES: go test -race -count=COUNT; prints {"exit":N,"failed":bool,
# ..., "report": whether the first failure's report names one of LINES (report_lines)}.
baseline() {
  local dir=$1 pkg=$2 test=$3 out=$4 lines=$5 rc=0 t0=$SECONDS failed=false
  if [ "$BASELINE" = 0 ]; then
    echo null
    return
  fi
  (cd "$dir" && "${nice_cmd[@]}" go test -race -vet=off -count="$COUNT" -timeout "${BASE_TIMEOUT:-180s}" -run "^($test)\$" "$pkg") \
    >"$out" 2>&1 || rc=$?
  if grep -q -e '\[build failed\]' -e '\[setup failed\]' "$out"; then
    failed=null
  elif [ "$rc" != 0 ]; then
    failed=true
  fi
  jq -n --argjson exit "$rc" --argjson failed "$failed" --argjson s $((SECONDS - t0)) \
    --arg first "$(grep -m 1 -e '--- FAIL' -e 'WARNING: DATA RACE' -e '^panic:' -e 'all goroutines are asleep' "$out" || true)" \
    --argjson report "$(report_lines "$out" "$lines")" \
    '{exit: $exit, failed: $failed, seconds: $s, first: $first, report: $report}'
}

# classify REPORT DIR LOCS LOG: the report's findings split by whether a position is at LOCS
# (file:line, module-relative), as JSON.
classify() {
  jq --arg dir "$2/" --arg locs "$3" --rawfile log "$4" '
    ($locs | split(" ") | map(select(. != ""))) as $L
    | def rel: ltrimstr($dir);
      def where: [.positions[]?, (.related[]?.position)] | map("\(.file | rel):\(.line)");
      def brief: {kind, confidence, severity, test_only: (.test_only // false), at: (.positions[0] | "\(.file | rel):\(.line)"),
                  where: (where | unique), run, message: (.message | .[0:200])};
      # The -v line of the run that found it: "12.3 <pkg>.<Test> run <n> ..." (run numbers
      # are per test: with several tests the finding'"'"'s test picks the line).
      def runtime: (if (.test // "") != "" then "\\.\(.test) run \(.run) " else " run \(.run) " end) as $re
                   | ($log | split("\n") | map(select(test($re))) | first | values | split(" ")[0] | tonumber);
      def at: where | any(.[]; . as $w | $L | any(.[]; . == $w));
      [.findings[] | select(.severity != "hint")] as $F
    | ($F | map(select(at))) as $at
    | ($F | map(select(at | not))) as $other
    | {at_lines: ($at | map(brief)), elsewhere: ($other | map(brief)),
       hints: ([.findings[] | select(.severity == "hint")] | length),
       errors: (.errors // []), warnings: (.warnings // [] | map(.[0:400])),
       runs: ([.tests[].runs] | add), seconds: ([.tests[].seconds] | add),
       statuses: ([.tests[].statuses] | add),
       first_at_lines_s: ([$at[] | runtime] | min),
       first_any_s: ([$F[] | runtime] | min)}
    | .found = (if (.at_lines | length) > 0 then "lines"
                elif (.elsewhere | length) > 0 or (.errors | length) > 0 then "elsewhere"
                else "missed" end)' "$1"
}

# run_bug BUGFILE: writes OUT/<id>.json; returns 1 when the bug could not be set up.
run_bug() {
  local bug id repo fixed parent pkg test patch lines class kinds note source g w p f rc
  read_bug "$1"
  [ -z "$patch" ] || [ -f "$patch" ] || {
    log "$id: no patch file $patch"
    return 1
  }
  log "$id: $repo parent ${parent:0:12} fixed ${fixed:0:12} $pkg $test"
  g=$(gitdir "$repo")
  w=$WORK/$id
  p=$w/parent
  f=$w/fixed
  if ! export_tree "$g" "$parent" "$p" "$patch" || ! export_tree "$g" "$fixed" "$f" "$patch"; then
    log "$id: could not set up the trees (missing commit, patch not applying, or no go.mod)"
    return 1
  fi
  local fl
  fl=$(fixlines "$g" "$parent" "$fixed" "$lines" | sort -u | tr '\n' ' ')

  local prc frc bp bf pres stored=${STORED:-$here/results}/$id.json
  if [ "$AT" = fix ]; then
    # The parent's campaign (and with BASELINE=0 the baselines) kept from the stored result.
    [ -f "$stored" ] || {
      log "$id: AT=fix needs a stored result $stored"
      return 1
    }
    log "$id: goweave at the parent: kept from $stored"
    pres=$(jq '.goweave as $g | .at_parent | del(.exit) | .kept_from = (.kept_from // {date: $g.date, commit: $g.commit})' "$stored")
    prc=$(jq '.at_parent.exit' "$stored")
  else
    log "$id: goweave at the parent"
    prc=$(fuzz "$p" "$pkg" "$test" "$w/parent.json")
    pres=$(classify "$w/parent.json" "$p" "$lines" "$w/parent.json.log")
  fi
  log "$id: goweave at the fix"
  frc=$(fuzz "$f" "$pkg" "$test" "$w/fixed.json")
  if [ "$AT" = fix ] && [ "$BASELINE" = 0 ]; then
    bp=$(jq '.baseline.parent' "$stored")
    bf=$(jq '.baseline.fixed' "$stored")
  else
    log "$id: baseline"
    bp=$(baseline "$p" "$pkg" "$test" "$w/base-parent.log" "$lines")
    bf=$(baseline "$f" "$pkg" "$test" "$w/base-fixed.log" "$fl")
  fi

  mkdir -p "$OUT"
  jq -n --arg id "$id" --arg repo "$repo" --arg parent "$parent" --arg fixed "$fixed" \
    --arg pkg "$pkg" --arg test "$test" --arg lines "$lines" --arg fixlines "$fl" \
    --arg class "$class" --arg kinds "$kinds" --arg note "$note" --arg source "$source" \
    --arg gw "$gw_commit" --arg go "$(go version | cut -d' ' -f3)" --arg time "$TIME" \
    --arg date "$(date -u +%FT%TZ)" --argjson count "$COUNT" \
    --argjson prc "$prc" --argjson frc "$frc" \
    --argjson pres "$pres" \
    --argjson fres "$(classify "$w/fixed.json" "$f" "$fl" "$w/fixed.json.log")" \
    --argjson bp "$bp" --argjson bf "$bf" '
    {id: $id, repo: $repo, parent: $parent, fixed: $fixed, pkg: $pkg, test: $test,
     class: $class, expected_kinds: ($kinds | split(" ")), lines: ($lines | split(" ")),
     note: $note, source: $source,
     goweave: {commit: $gw, go: $go, time: $time, date: $date},
     at_parent: ($pres + {exit: $prc}),
     at_fix: ($fres + {exit: $frc, bug_code: ($fixlines | split(" ") | map(select(. != "")))}
              | .on_bug_code = .at_lines | del(.at_lines)),
     baseline: {count: $count, parent: $bp, fixed: $bf}}' >"$OUT/$id.json"
  explain_result "$OUT/$id.json"
  rc=$(jq -r '"\(.at_parent.found) baseline=\(.baseline.parent.failed // "-") fix-on-code=\(.at_fix.on_bug_code | length) unexplained=\(.at_fix.unexplained)"' "$OUT/$id.json")
  log "$id: $rc"
}

# report_bug BUGFILE [LOG]: the report mode; returns 1 when the bug has no result or no tree.
report_bug() {
  local bug id repo fixed parent pkg test patch lines class kinds note source g p r json mode
  read_bug "$1"
  json=$OUT/$id.json
  [ -f "$json" ] || {
    log "$id: no $json"
    return 1
  }
  mode=$(jq -r '.mode // "run"' "$json")
  if [ -n "${2:-}" ]; then
    r=$(report_lines "$2" "$lines" | jq --arg src "kept log $2 of $(date -u -r "$2" +%FT%TZ)" '. + {source: $src}')
  else
    g=$(gitdir "$repo")
    p=$WORK/$id/parent
    if [ "$mode" = existing ]; then
      export_plain "$g" "$parent" "$p" "$patch" || return 1
      r=$(baseline_all "$p" "$pkg" "$WORK/$id/base-parent.log" "$lines")
    else
      export_tree "$g" "$parent" "$p" "$patch" || return 1
      r=$(baseline "$p" "$pkg" "$test" "$WORK/$id/base-parent.log" "$lines")
    fi
    # A rerun's own outcome is kept beside its report: it may differ from the stored one.
    r=$(jq --arg d "$(date -u +%FT%TZ)" '.report + {source: "rerun \($d)", failed, exit, first}' <<<"$r")
  fi
  log "$id: $(jq -c . <<<"$r")"
  jq --argjson r "$r" --arg mode "$mode" \
    'if $mode == "existing" then .baseline.report = $r else .baseline.parent.report = $r end' \
    "$json" >"$json.tmp" && mv "$json.tmp" "$json"
}

# table JSON...: the markdown table and its summary.
table() {
  jq -rs "$leftover_jq"'
    def s: if . == null then "-" else "\(. * 10 | round / 10) s" end;
    def yn: if . == null then "-" elif . then "failed" else "passed" end;
    # Whether the first failure'"'"'s report at the parent names a bug line (report_bug).
    def named: .baseline.parent.report | if . == null then "-" elif .at_lines then "**\(.kind) at the lines**"
      elif .named then "\(.kind), at the lines in a dump of \(.goroutines)" else .kind end;
    def kinds: map("\(.kind) (\(.confidence))") | unique | join(", ");
    (length) as $n
    | "| bug | class | goweave at the parent | kinds found | first finding | `go test -race -count=N` parent / fix | its first failure report at the parent | at the fix: on the bug'"'"'s code, unexplained / elsewhere |",
      "|---|---|---|---|---|---|---|---|",
      (.[] | "| \(.id) | \(.class) | \(.at_parent.found | if . == "lines" then "**found at the lines**" elif . == "elsewhere" then "found elsewhere" else "missed" end) | \((.at_parent.at_lines | kinds) as $k | if $k == "" then (.at_parent.elsewhere | kinds) else $k end) | \(.at_parent.first_at_lines_s // .at_parent.first_any_s | s) | \(.baseline.parent.failed | yn) / \(.baseline.fixed.failed | yn) | \(named) | \(unexplained) / \(.at_fix.elsewhere | length)\(leftover_text | if . == "" then "" else "; \(.)" end) |"),
      "",
      ([.[] | select(.at_parent.found == "lines")] | length) as $l
    | ([.[] | select(.at_parent.found != "missed")] | length) as $a
    | ([.[] | select(.baseline.parent != null)] | length) as $nb
    | ([.[] | select(.baseline.parent.failed == true)] | length) as $b
    | ([.[] | select(.baseline.parent.failed == true and .baseline.fixed.failed != true)] | length) as $bo
    | ([.[] | select(.baseline.parent.report != null)] | length) as $nr
    | ([.[] | select(.baseline.parent.failed == true and .baseline.parent.report.at_lines == true)] | length) as $bl
    | ([.[] | select(.at_parent.found == "lines" and unexplained == 0)] | length) as $lo
    | ([.[] | select(.at_parent.found == "lines" and unexplained == 0 and explained > 0)] | length) as $lx
    | ([.[] | .at_parent.first_at_lines_s // .at_parent.first_any_s | values] | sort) as $t
    | "Found at the bug'"'"'s lines: \($l)/\($n) (\($l * 100 / $n | round)%); found anywhere: \($a)/\($n); "
      + (if $nb == 0 then "no baseline run. " else
        "`go test -race -count=N` at the parent: \($b)/\($nb) (\($b * 100 / $nb | round)%), "
      + "of them passing at the fix: \($bo)/\($nb) (\($bo * 100 / $nb | round)%)"
      + (if $nr == 0 then ". " else "; failing with a first report (race, panic, hang dump of at most 50 goroutines, "
      + "failure message) that names a bug line: \($bl)/\($nb) (\($bl * 100 / $nb | round)%), \($nr) reports. " end) end)
      + "Found at the lines and nothing unexplained on the bug'"'"'s code at the fix: \($lo)/\($n) (\($lo * 100 / $n | round)%)"
      + "\(if $lx > 0 then ", of them \($lx) with only real leftovers of the fix there, each reproduced by a kept test under go test -race" else "" end). "
      + "Median time to the first finding: \(if ($t | length) > 0 then $t[($t | length - 1) / 2 | floor] | s else "-" end). "
      + "At the fixed commits: \([.[] | unexplained] | add) unexplained findings on the bug'"'"'s code"
      + "\([.[] | explained] | add | if . > 0 then " (and \(.) real leftovers of the fixes, reproduced, counted apart)" else "" end), "
      + "\([.[].at_fix.elsewhere | length] | add) elsewhere; baseline failing at the fix: "
      + "\([.[] | select(.baseline.fixed.failed == true)] | length)."' "$@"
}

# shellcheck source-path=SCRIPTDIR source=existing.sh
. "$here/existing.sh"
# shellcheck source-path=SCRIPTDIR source=leftovers.sh
. "$here/leftovers.sh"

# Sourced (report_test.sh): the functions only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

mode=run
case "${1:-}" in
run) shift ;;
table | smoke | existing | report | leftovers | explain) mode=$1 && shift ;;
-h | --help)
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
  ;;
esac

case $mode in
table)
  files=()
  [ $# -gt 0 ] || set -- "$OUT"
  [ "$*" != existing ] || set -- "$here/results-existing"
  for a in "$@"; do
    if [ -d "$a" ]; then
      files+=("$a"/*.json)
    else
      files+=("$a")
    fi
  done
  if jq -se 'all(.mode == "existing")' "${files[@]}" >/dev/null; then
    table_existing "${files[@]}"
  else
    table "${files[@]}"
  fi
  ;;
leftovers)
  [ $# -gt 0 ] || set -- "$here"/leftovers/*.leftover
  setup_work
  status=0
  bugs=()
  for l in "$@"; do
    measure_leftover "$l" || status=1
    bugs+=("$(bugkey "$l" bug)")
  done
  for b in $(printf '%s\n' "${bugs[@]}" | sort -u); do
    for j in "$OUT/$b.json" "${OUT_EXISTING:-$here/results-existing}/$b.json"; do
      [ ! -f "$j" ] || explain_result "$j"
    done
  done
  exit "$status"
  ;;
explain)
  [ $# -gt 0 ] || set -- "$here"/results/*.json "$here"/results-existing/*.json
  for j in "$@"; do explain_result "$j"; done
  ;;
report)
  [ $# -gt 0 ] || die "report: a bug file is needed"
  BASELINE=1
  setup_work
  report_bug "$@"
  ;;
existing)
  [ -n "$out_given" ] || OUT=$here/results-existing
  BASE_TIMEOUT=${BASE_TIMEOUT:-150s}
  [ $# -gt 0 ] || set -- "$here"/bugs/*.bug
  setup_work
  build_goweave
  status=0
  for b in "$@"; do
    run_existing "$b" || status=1
  done
  exit "$status"
  ;;
run | smoke)
  if [ "$mode" = smoke ]; then
    TIME=10s
    BASELINE=0
    set --
    for id in $SMOKE_BUGS; do set -- "$@" "$here/bugs/$id.bug"; done
  fi
  [ $# -gt 0 ] || set -- "$here"/bugs/*.bug
  setup_work
  [ "$mode" = smoke ] && OUT=$WORK/results
  build_goweave
  status=0
  for b in "$@"; do
    run_bug "$b" || status=1
  done
  if [ "$mode" = smoke ]; then
    table "$OUT"/*.json
    for id in $SMOKE_BUGS; do
      jq -e '.at_parent.found == "lines" and (.at_fix.on_bug_code | length) == 0' "$OUT/$id.json" >/dev/null || {
        log "smoke: $id not found at its lines, or found on its code at the fix"
        status=1
      }
    done
  fi
  exit "$status"
  ;;
esac
