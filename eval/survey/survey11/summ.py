import json,sys,os
for p in sys.argv[1:]:
    try: d=json.load(open(p))
    except Exception as e: print(p, "unreadable", e); continue
    T=d.get('tests') or []; F=d.get('findings') or []
    print("==", os.path.basename(p), "tests", len(T), "runs", sum(t.get('runs',0) for t in T), "findings", len(F), "timing", sum(1 for f in F if f.get('timing')),
          "statuses", {s: sum(1 for t in T if t.get('status')==s) for s in set(t.get('status') for t in T)})
    for f in F:
        pos=f.get('positions') or []
        pp=",".join(f"{os.path.basename(x['file'])}:{x['line']}" for x in pos[:2])
        print(f"- {f['kind']} ({f['confidence']},{f['severity']}) {pp} {f.get('test')} seen {f.get('seenIn')}/{f.get('ofRuns')} timing={f.get('timing')} {f['id']}")
        if '-v' in os.environ.get('V',''): print("    ", f['message'][:1500])
