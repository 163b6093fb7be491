"""The logistic separators' fold scores on R more repeats of annc's StratifiedKFold (shuffle seeds
1..R; seed 0 is the folds annc cuts), as annc's plan under a 30 s limit scores them, per set and split.

    python bench/issue36_repeats/collect_rep.py <set,set,...> <splits> <R> <out.jsonl>
"""
import sys, json, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import numpy as np
from realdata_sets import splits
from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.training import cvselect
from annc.training.modelselect.cvpath import fold_path
from annc.training.context import RunContext
from dataclasses import replace
sets, nsplit, R, out = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
with open(out, "a") as fh:
    for name in sets:
        H = {"class4": 6}.get(name, 4)
        for i, Xtr, ytr, Xte, yte in splits(name, nsplit):
            d = as_data((Xtr, ytr)); k = len(d.classes)
            spec = parse_spec(f"input {d.inputs}\nhidden {H} binary\noutput {k}\n")
            counts = np.bincount(np.asarray(d.y), minlength=k)
            plan = cvselect.plan_for(spec, len(d.y), int(counts[counts > 0].min()), cvselect._eps(spec, d, True), 30.0)
            if not plan.logistic: continue
            t0 = time.perf_counter(); reps = {}
            for r in range(R + 1):
                p = replace(plan, seed=r)
                for f, (fit, val) in enumerate(cvselect._folds(d, p)):
                    sc = fold_path(spec, fit, val, p, ctx=RunContext(), merge=True, groups=[], logistic=True, state={})
                    for s in plan.logistic:
                        reps.setdefault(str(s.logistic), []).append((r, f, sc[s].accuracy, sc[s].nonzero_weights))
            rec = {"set": name, "split": i, "seconds": round(time.perf_counter() - t0, 1), "reps": reps}
            fh.write(json.dumps(rec) + "\n"); fh.flush()
            print(name, i, rec["seconds"], flush=True)
