"""Per set and split: cross-validation as annc runs it under a 30 s limit (the plan of
cvselect.plan_for, the folds uncapped), every setting's fold scores, and the test and training
accuracy of each setting's network on all the training rows (the folds' path on the whole set, the
network the final training starts from; for a logistic setting, the network it keeps).

    python bench/issue36_paired/collect.py <set,set,...> <splits> <out.jsonl>
"""
import sys, json, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import numpy as np
from realdata_sets import splits
from annc.app.api import as_data
from annc.io.spec import parse_spec
from annc.core.network import TrainedNetwork, Layer
from annc.training import cvselect
from annc.training.modelselect.cvrows import raw_network

cap = {}
orig = cvselect._realise
def spy(sel, spec, data, networks, ctx, merge, log):
    cap["networks"] = dict(networks)
    return orig(sel, spec, data, networks, ctx, merge, log)
cvselect._realise = spy

def net_of(W, b, classes):
    layers = [Layer("binary", w, v) for w, v in zip(W[:-1], b[:-1])] + [Layer("linear", W[-1], b[-1])]
    return TrainedNetwork(classes=list(range(classes)), layers=layers)

sets, nsplit, out = sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3]
with open(out, "a") as fh:
    for name in sets:
        H = {"class4": 6}.get(name, 4)
        for i, Xtr, ytr, Xte, yte in splits(name, nsplit):
            d = as_data((Xtr, ytr)); t = as_data((Xte, yte), like=d)
            k = len(d.classes)
            spec = parse_spec(f"input {d.inputs}\nhidden {H} binary\noutput {k}\n")
            cap.clear(); t0 = time.perf_counter()
            sel = cvselect.cross_validate(spec, d, time_limit=30.0)
            rec = {"set": name, "split": i, "seconds": round(time.perf_counter() - t0, 1), "rows": len(d.y),
                   "folds": sel.plan.folds if sel else None, "chosen": sel.label if sel else None, "settings": []}
            if sel:
                nets = cap.get("networks", {})
                for j, s in enumerate(sel.plan.settings):
                    sc = sel.scores[j]; w = sel.whole[j]
                    row = {"label": sel.labels[j], "width": s.width, "penalty": s.penalty, "eps": s.eps,
                           "logistic": s.logistic, "acc": [f.accuracy for f in sc], "nnz": [f.nonzero_weights for f in sc],
                           "fit": [f.fit_accuracy for f in sc], "whole_fit": w.fit_accuracy, "whole_nnz": w.nonzero_weights}
                    if s in nets:
                        W, b = raw_network(*nets[s])
                        net = net_of(W, b, k)
                        row["test"] = float(np.mean(net.predict_index(t.X) == t.y))
                        row["train"] = float(np.mean(net.predict_index(d.X) == d.y))
                        row["nnz_raw"] = int(sum(np.count_nonzero(x) for x in W))
                    rec["settings"].append(row)
            fh.write(json.dumps(rec) + "\n"); fh.flush()
            print(name, i, rec["seconds"], rec["chosen"], flush=True)
