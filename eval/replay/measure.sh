#!/bin/bash
# measure.sh GOWEAVE N recipe.json... : for each recipe, N independent one-attempt replays
# (goweave replay -force -runs 1), prints "k of N" (exit status 1 = reproduced) and the exit
# status of each attempt.
gw=$1; n=$2; shift 2
for r in "$@"; do
  dir=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['dir'])" "$r")
  k=0; codes=""
  for i in $(seq 1 $n); do
    out=$(cd "$dir" && nice -n 5 $gw replay -force -runs 1 "$r" 2>&1); rc=$?
    codes="$codes$rc"; [ $rc = 1 ] && k=$((k+1))
    [ $rc = 2 ] && { echo "ERROR $r"; echo "$out" | head -5; break; }
    # each replay keeps its test binary and traces: remove them (a disk fills in ~200 replays)
    kept=$(echo "$out" | grep -o 'GOWEAVE_TRACE=[^ ]*' | head -1 | sed 's|GOWEAVE_TRACE=||')
    [ -n "$kept" ] && rm -rf "$(dirname "$kept")"
  done
  echo "$(date +%H:%M:%S) $(basename $r) $k of $n  [$codes]"
done
