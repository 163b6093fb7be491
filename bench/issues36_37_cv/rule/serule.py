import sys, numpy as np, json
sys.path.insert(0, "/work/main/bench")
from realdata_sets import splits
from realdata_annc import spec_text
from annc.app.api import as_data, train_api
import annc.training.modelselect.cvselect as cvs
name, n, rule = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
cvs.SE_RULE = rule
for split, Xtr, ytr, Xte, yte in splits(name, n):
    d = as_data((Xtr, ytr))
    r = train_api(spec_text(d.inputs, 4, len(d.classes)), (Xtr, ytr), (Xte, yte), time_limit=30, threads=1, out_dir=None)
    sel = r.network.meta.get("selection") or {}
    print(json.dumps({"set": name, "split": split, "rule": rule, "test": r.test_accuracy, "train": r.train_accuracy,
          "nnz": int(r.network.nonzero_weights()), "chosen": sel.get("chosen_label"), "cv": sel.get("cv_estimate")}), flush=True)
