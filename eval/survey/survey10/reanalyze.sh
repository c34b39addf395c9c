#!/bin/bash
# Re-analyze kept traces with two goweave builds and print the traces whose findings differ.
# usage: reanalyze.sh OLD_GOWEAVE NEW_GOWEAVE < list-of-trace-paths
# (survey 10: find /work/real/out7 /work/real/out8 /work/real/out9 /work/real/out10 -name '*.trace' -size -20M)
old=$1 new=$2
findings() {
  timeout 60 "$1" analyze -json "$2" 2>/dev/null | python3 -c "import json,sys; print(sorted((f['kind'],f['confidence'],f['message']) for f in json.load(sys.stdin)['findings']))" 2>&1
}
n=0 d=0
while read -r t; do
  a=$(findings "$old" "$t") b=$(findings "$new" "$t")
  n=$((n+1))
  if [ "$a" != "$b" ]; then
    d=$((d+1)); echo "DIFF $t"
    python3 - "$a" "$b" <<'PY'
import ast, sys
try:
    a, b = set(ast.literal_eval(sys.argv[1])), set(ast.literal_eval(sys.argv[2]))
    for x in sorted(a - b): print("  - gone:", x[0], x[1], x[2][:200])
    for x in sorted(b - a): print("  + new: ", x[0], x[1], x[2][:200])
except Exception:
    print("  (unparsed)", sys.argv[1][:200], "|", sys.argv[2][:200])
PY
  fi
done
echo "$n traces, $d differ"
