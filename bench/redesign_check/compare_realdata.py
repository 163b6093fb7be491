"""Old against new, run by run: python bench/redesign_check/compare_realdata.py OLD.jsonl NEW.jsonl (splits 0 and 1 of the default recipe)."""
import json, sys
def load(p, method="default"):
    out = {}
    for l in open(p):
        r = json.loads(l)
        if r.get("method") == method and r["split"] in (0, 1):
            out[(r["set"], r["split"])] = r
    return out
a = load(sys.argv[1]); b = load(sys.argv[2])
print(f"{'set':14} {'split':5} | {'A obj':>7} {'B obj':>7} | {'A test':>6} {'B test':>6} | {'A nz':>4} {'B nz':>4} | {'A pool':>7} {'B pool':>7} | {'A s':>5} {'B s':>5}")
same = 0
for k in sorted(set(a) & set(b)):
    x, y = a[k], b[k]
    s = x["objective"] == y["objective"] and x["test_accuracy"] == y["test_accuracy"]
    same += s
    print(f"{k[0]:14} {k[1]:5} | {x['objective']:7.1f} {y['objective']:7.1f} | {100*x['test_accuracy']:6.1f} {100*y['test_accuracy']:6.1f} | {x['nonzero_weights']:4} {y['nonzero_weights']:4} | {x['pool_best']:7.1f} {y['pool_best']:7.1f} | {x['seconds']:5.1f} {y['seconds']:5.1f} {'' if s else '  <- differs'}")
print(f"identical objective and test accuracy: {same} of {len(set(a) & set(b))}")
