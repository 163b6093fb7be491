"""Before and after, one row per (set, split): python compare.py BEFORE/runs.jsonl AFTER/runs.jsonl"""
import json, sys
def load(p): return {(r['set'],r['split']): r for r in map(json.loads, open(p))}
b, a = load(sys.argv[1]), load(sys.argv[2])
print("| set | split | wall s before -> after | full MIP s before -> after | test acc. before -> after | objective before -> after | gap before -> after | weights | how the after run ended |")
print("|---|---|---|---|---|---|---|---|---|")
for k in [k for k in b if k in a]:
    x, y = b[k], a[k]
    f=lambda v: "-" if v is None else (f"{100*v:.1f}%" if isinstance(v,float) else str(v))
    print(f"| {k[0]} | {k[1]} | {x['seconds']:.1f} -> {y['seconds']:.1f} | {x['times']['full MIP']:.1f} -> {y['times']['full MIP']:.1f} | {100*x['test_accuracy']:.1f} -> {100*y['test_accuracy']:.1f} | {x['objective']:g} -> {y['objective']:g} | {f(x['gap'])} -> {f(y['gap'])} | {x['nonzero_weights']} -> {y['nonzero_weights']} | {y.get('ended')} |")
