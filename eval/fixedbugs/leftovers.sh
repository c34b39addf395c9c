# shellcheck shell=bash disable=SC2154 # nice_cmd, goflags, OUT, here, log, bugkey, gitdir, export_tree: run.sh
# Sourced by run.sh: real leftovers of a fix. A finding that goweave still reports on the bug's
# code at the fixed commit is a miss of the benchmark's target unless it is a real bug that the
# fix left (or brought): a maintainer accepts that only with a reproduction that fails without
# goweave. leftovers/<name>.leftover describes one (layout in README.md); `run.sh leftovers`
# builds the fixed commit's tests with the reproduction's patch under `go test -race -c` and runs
# the binary $LEFTOVER_RUNS times (default 20: as many separate `go test -race -count=1`; a crash
# ends only its own run), a run reproducing it when it fails and its output matches the
# leftover's signature. A result's finding on the bug's code at the fix whose kind is one of the
# leftover's kinds and which has a position at one of its lines is then marked
# `"leftover": name` when the reproduction failed at least once; the others are unexplained.

LEFTOVER_RUNS=${LEFTOVER_RUNS:-20}

# read_leftover FILE: sets lo (its name) and lo_bug, lo_patch (a path, empty when none), lo_pkg,
# lo_test, lo_lines, lo_kinds, lo_signature, lo_upstream, lo_note.
read_leftover() {
  local k v
  lo=$(basename "$1" .leftover)
  for k in bug patch pkg test lines kinds signature upstream note; do
    v=$(bugkey "$1" "$k")
    printf -v "lo_$k" '%s' "$v"
  done
  [ -z "$lo_patch" ] || lo_patch=$(cd "$(dirname "$1")/../patches" && pwd)/$lo_patch
}

# leftover_dir: where measured reproductions are kept (like a stored baseline, they do not
# depend on goweave: every mode's results are marked from the one store).
leftover_dir() { echo "${LEFTOVER_OUT:-$here/results/leftovers}"; }

# measure_leftover FILE: runs the reproduction at the bug's fixed commit, writes
# $(leftover_dir)/<name>.json; returns 1 when it could not be set up or built.
measure_leftover() {
  local f=$1 bugfile repo fixed g w t bin i rc runs=0 failed=0 reproduced=0 first="" d
  read_leftover "$f"
  bugfile=$(dirname "$f")/../bugs/$lo_bug.bug
  [ -f "$bugfile" ] || {
    log "$lo: no bug file $bugfile"
    return 1
  }
  repo=$(bugkey "$bugfile" repo)
  fixed=$(bugkey "$bugfile" fixed)
  g=$(gitdir "$repo")
  w=$WORK/leftover-$lo
  t=$w/fixed
  if ! export_tree "$g" "$fixed" "$t" "$lo_patch"; then
    log "$lo: could not set up the fixed commit's tree"
    return 1
  fi
  d=$t/${lo_pkg#./}
  bin=$w/leftover.test
  log "$lo: $repo fixed ${fixed:0:12}: go test -race -c $lo_pkg, then $lo_test $LEFTOVER_RUNS times"
  if ! (cd "$t" && "${nice_cmd[@]}" go test -race -vet=off -c -o "$bin" "$lo_pkg") >"$w/build.log" 2>&1; then
    log "$lo: the reproduction does not build: $(head -c 400 "$w/build.log")"
    return 1
  fi
  for ((i = 1; i <= LEFTOVER_RUNS; i++)); do
    rc=0
    (cd "$d" && "${nice_cmd[@]}" "$bin" -test.run "^($lo_test)\$" -test.count=1 -test.v \
      -test.timeout "${LEFTOVER_TIMEOUT:-180s}") >"$w/run-$i.log" 2>&1 || rc=$?
    runs=$((runs + 1))
    if [ "$rc" != 0 ] || grep -q -e '^--- FAIL' -e 'WARNING: DATA RACE' "$w/run-$i.log"; then
      failed=$((failed + 1))
      if grep -qE -- "$lo_signature" "$w/run-$i.log"; then
        reproduced=$((reproduced + 1))
        [ -n "$first" ] || first=$(grep -m 1 -E -- "$lo_signature" "$w/run-$i.log" | sed "s|$t/||g; s/^[[:space:]]*//" | cut -c1-300)
      fi
    fi
  done
  mkdir -p "$(leftover_dir)"
  jq -n --arg name "$lo" --arg bug "$lo_bug" --arg repo "$repo" --arg fixed "$fixed" \
    --arg patch "$(basename "${lo_patch:-}")" --arg pkg "$lo_pkg" --arg test "$lo_test" \
    --arg lines "$lo_lines" --arg kinds "$lo_kinds" --arg sig "$lo_signature" \
    --arg upstream "$lo_upstream" --arg note "$lo_note" --arg first "$first" \
    --arg go "$(go version | cut -d' ' -f3)" --arg date "$(date -u +%FT%TZ)" \
    --argjson runs "$runs" --argjson failed "$failed" --argjson reproduced "$reproduced" '
    {name: $name, bug: $bug, repo: $repo, fixed: $fixed, patch: $patch, pkg: $pkg, test: $test,
     lines: ($lines | split(" ") | map(select(. != ""))), kinds: ($kinds | split(" ") | map(select(. != ""))),
     signature: $sig, upstream: $upstream, note: $note,
     how: "go test -race -vet=off -c at the fixed commit with the patch, the binary run once per run (-test.count=1)",
     go: $go, date: $date, runs: $runs, failed: $failed, reproduced: $reproduced, first: $first}' \
    >"$(leftover_dir)/$lo.json"
  log "$lo: failed $failed/$runs, with its signature $reproduced/$runs"
}

# explain_result JSON: marks the result's findings on the bug's code at the fix that a
# reproduced leftover of its bug explains (kind and a position), in place; adds
# .at_fix.leftovers (the bug's measured reproductions) and .at_fix.unexplained (how many
# findings on the bug's code are left).
explain_result() {
  local json=$1 dir m
  dir=$(leftover_dir)
  m=$(if compgen -G "$dir/*.json" >/dev/null; then jq -s . "$dir"/*.json; else echo '[]'; fi)
  jq --argjson L "$m" '
    if .at_fix == null then . else
      .id as $id
      | ($L | map(select(.bug == $id))) as $mine
      | .at_fix.on_bug_code |= map(
          . as $f
          | ([$f.where[]?, $f.at] | unique) as $w
          | ([$mine[] | select(.reproduced > 0 and any(.kinds[]; . == $f.kind)
                and any(.lines[]; . as $l | any($w[]; . == $l)))] | first | .name) as $n
          | if $n != null then .leftover = $n else del(.leftover) end)
      | .at_fix.on_bug_code as $F
      | .at_fix.leftovers = [$mine[] | {name, patch, test, upstream, runs, failed, reproduced, date,
          explains: (.name as $n | [$F[] | select(.leftover == $n)] | length)}]
      | .at_fix.unexplained = ([$F[] | select(.leftover == null and (.test_only // false | not))] | length)
      | .at_fix.test_only = ([$F[] | select(.leftover == null and (.test_only // false))] | length)
    end' "$json" >"$json.tmp" && mv "$json.tmp" "$json"
}

# leftover_jq: jq definitions for the tables (run.sh, existing.sh): a result's explained
# findings as text ("" when none), and how many of its findings on the bug's code are
# unexplained or explained.
# shellcheck disable=SC2016,SC2034 # jq, not shell; used by the sourcing scripts
leftover_jq='def leftover_text: ([.at_fix.leftovers[]? | select(.explains > 0)
  | "real leftover\(if .explains > 1 then " (\(.explains) findings)" else "" end), reproduced: patch \(.patch), fails \(.reproduced)/\(.runs) under go test -race"]
  + [[.at_fix.on_bug_code[]? | select(.leftover == null and (.test_only // false))] | length | select(. > 0)
     | "\(.) test-only (a leak the test made, warning)"]) | join("; ");
  def unexplained: [.at_fix.on_bug_code[]? | select(.leftover == null and (.test_only // false | not))] | length;
  def explained: [.at_fix.on_bug_code[]? | select(.leftover != null)] | length;'
