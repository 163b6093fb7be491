"""annc's rule (CVSelection.order, cvselect._realised) on bench/issue36_grid/folds.jsonl, with the logistic
separators' CV accuracy (and mean weights) over REP+1 repeats of the folds (collect_rep.py's
records); the MIP path keeps its one repeat, and the paired check compares on the first repeat's
folds.  CS= restricts the separators' Cs as bench/issue36_paired/rules.py does.  ``*``: a choice
that differs from the one recorded in folds.jsonl.

    CS=0.01,0.1,0.3,1,3,10 REP=2 python bench/issue36_repeats/rules_rep.py bench/issue36_grid/folds.jsonl bench/issue36_repeats/reps.jsonl
"""
import json, sys, os, collections, numpy as np
from annc.training.modelselect.cvpath import Setting, FoldScore, Plan
from annc.training.modelselect.cvresults import CVSelection
from annc.training import cvselect
from annc.io.spec import parse_spec
REP = int(os.environ.get("REP", "0"))
reps = {}
for l in open(sys.argv[2]):
    r = json.loads(l); reps[(r["set"], r["split"])] = r["reps"]
K = {}
def paired(self, i, ref):
    k = self.plan.folds
    d = self._acc(i)[:k] - self._acc(ref)[:k]
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0
CVSelection.paired = paired
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if not r["settings"]: continue
    S = r["settings"]
    if os.environ.get("CS"):
        keep = {float(c) for c in os.environ["CS"].split(",")}
        S = [s for s in S if s["logistic"] is None or s["logistic"] in keep]
    rp = reps.get((r["set"], r["split"]))
    plan = Plan(tuple(Setting(s["width"], s["penalty"], s["eps"], logistic=s["logistic"]) for s in S), r["folds"], ("penalty", "width"))
    scores = []
    for s in S:
        sc = [FoldScore(a, f_, n) for a, f_, n in zip(s["acc"], s["fit"], s["nnz"])]
        if s["logistic"] is not None and rp and REP:
            rows = rp[str(s["logistic"])]
            base = [x for x in rows if x[0] == 0]
            assert all(abs(b[2] - a) < 1e-9 for b, a in zip(base, s["acc"])), (r["set"], r["split"], s["label"], base, s["acc"])
            sc += [FoldScore(x[2], None, x[3]) for x in rows if 1 <= x[0] <= REP]
        scores.append(sc)
    whole = [FoldScore(s["whole_fit"], s["whole_fit"], s["whole_nnz"]) for s in S]
    sel = CVSelection(plan, [s["label"] for s in S], scores, 0, 0, parse_spec("input 2\nhidden 4 binary\noutput 2\n"), r["rows"], whole=whole)
    sel.best, _ = sel.choose()
    ch = next(i for i in sel.order(sel.best) if cvselect._realised(sel, i))
    c = S[ch]
    by[r["set"]].append((c.get("test"), c.get("train"), c.get("nnz_raw"), c["label"], r["chosen"]))
tot = []
for st, rs in by.items():
    t = 100*np.mean([x[0] for x in rs]); tr = 100*np.mean([x[1] for x in rs]); w = np.mean([x[2] for x in rs])
    tot.append((t, tr - t, w))
    print(f"{st:14s} test {t:5.1f} gap {tr-t:4.1f} w {w:5.1f} | " + "; ".join(("" if x[3]==x[4] else "*") + x[3][:22] for x in rs))
