import json, sys, statistics
def load(d):
    return {(r["set"], r["split"]): r for r in map(json.loads, open(f"{d}/runs.jsonl")) if r["method"]=="default"}
a, b = load(sys.argv[1]), load(sys.argv[2])
print(f"{'set':14} {'split':5} | {'obj':>6} {'bound':>6} {'gap':>6} {'secs':>6} {'test':>6} {'nnz':>4} | {'obj':>6} {'bound':>6} {'gap':>6} {'secs':>6} {'test':>6} {'nnz':>4} status  source(after)")
ga, gb = [], []
for k in sorted(set(a) & set(b)):
    x, y = a[k], b[k]
    ga.append(x["gap"]); gb.append(y["gap"])
    print(f"{k[0]:14} {k[1]:5} | {x['objective']:6g} {x['lower_bound']:6g} {x['gap']:6.3f} {x['seconds']:6.1f} {x['test_accuracy']:6.3f} {x['nonzero_weights']:4} | {y['objective']:6g} {y['lower_bound']:6g} {y['gap']:6.3f} {y['seconds']:6.1f} {y['test_accuracy']:6.3f} {y['nonzero_weights']:4} {y['status']:8} {(y['bound_source'] or '')[:70]}")
print("median gap before", statistics.median(ga), "after", statistics.median(gb))
