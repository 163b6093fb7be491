"""The choice of annc's own rule (CVSelection.order and cvselect._realised) on the fold scores collect.py
recorded, and each chosen setting's network on all rows: its test and training accuracy and
weights, per set (mean over the splits).  ``R0=1``: the rule without the paired check (the path
and the separators by CV accuracy alone); ``PSE=x``: PAIRED_SE = x; ``CS=0.01,0.1,1,10``: only
the logistic separators at those Cs (bench/issue36_grid; every setting of the path kept).  ``*`` marks a choice that
differs from the one recorded (the code that ran collect.py).

    python bench/issue36_paired/rules.py bench/issue36_paired/folds.jsonl
"""
import json, sys, collections, numpy as np
from annc.training.modelselect.cvpath import Setting, FoldScore, Plan
from annc.training.modelselect.cvresults import CVSelection
from annc.training import cvselect
from annc.io.spec import parse_spec
import os
if os.environ.get("R0"):
    CVSelection.separator_first = lambda self, order: order
if os.environ.get("PSE"):
    import annc.training.modelselect.cvresults as cr; cr.PAIRED_SE = float(os.environ["PSE"])
by = collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        r = json.loads(l)
        if not r["settings"]: continue
        S = r["settings"]
        if os.environ.get("CS"):
            keep = {float(c) for c in os.environ["CS"].split(",")}
            S = [s for s in S if s["logistic"] is None or s["logistic"] in keep]
        plan = Plan(tuple(Setting(s["width"], s["penalty"], s["eps"], logistic=s["logistic"]) for s in S), r["folds"], ("penalty", "width"))
        scores = [[FoldScore(a, f_, n) for a, f_, n in zip(s["acc"], s["fit"], s["nnz"])] for s in S]
        whole = [FoldScore(s["whole_fit"], s["whole_fit"], s["whole_nnz"]) for s in S]
        sel = CVSelection(plan, [s["label"] for s in S], scores, 0, 0, parse_spec("input 2\nhidden 4 binary\noutput 2\n"), r["rows"], whole=whole)
        sel.best, _ = sel.choose()
        ch = next(i for i in sel.order(sel.best) if cvselect._realised(sel, i))
        sel.chosen = ch
        c = S[ch]
        by[r["set"]].append((c.get("test"), c.get("train"), c.get("nnz_raw"), c["label"], r["chosen"], sel.behind_separator()))
for st, rs in by.items():
    t = 100*np.mean([x[0] for x in rs]); tr = 100*np.mean([x[1] for x in rs]); w = np.mean([x[2] for x in rs])
    print(f"{st:14s} test {t:5.1f} gap {tr-t:4.1f} w {w:5.1f} | " + "; ".join(("" if x[3]==x[4] else "*") + x[3][:24] for x in rs))
