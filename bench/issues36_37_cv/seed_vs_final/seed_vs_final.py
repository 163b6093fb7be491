"""Run: python bench/issues36_37_cv/seed_vs_final/seed_vs_final.py whas500 diabetes gbsg2 (from the repository root).

Is the cheap path's network on all rows (what CV scored) better on the test rows than the
network exported after the full search?  whas500 and diabetes, 5 splits, 30 s."""
import sys, json
import numpy as np
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from realdata_sets import splits, SETS
from realdata_annc import spec_text
from annc.app.api import as_data, train as train_api
from annc.core.network import Layer, TrainedNetwork

def seed_acc(seed, spec_acts, X, y, classes):
    W, b = seed
    layers = [Layer(a, np.asarray(w, float), np.asarray(v, float)) for a, w, v in zip(spec_acts, W, b)]
    net = TrainedNetwork(list(range(len(classes))), layers)
    return float(np.mean(net.predict_index(X) == y))

if __name__ == "__main__":
    for name in sys.argv[1:]:
        H = SETS[name][1]
        for i, Xtr, ytr, Xte, yte in splits(name, 5):
            dtr = as_data((Xtr, ytr))
            k = len(np.unique(ytr))
            r = train_api(spec_text(dtr.inputs, H, k), (Xtr, ytr), (Xte, yte), time_limit=30, threads=1, out_dir=None)
            sel = r.selection
            out = {"set": name, "split": i, "final_test": r.test_accuracy, "final_train": r.train_accuracy,
                   "final_w": r.network.nonzero_weights(), "chosen": getattr(sel, "label", None)}
            if sel is not None and getattr(sel, "start_network", None) is not None:
                W, b = sel.start_network
                acts = [L.activation for L in r.network.layers]
                # the seed is on the raw (one-hot encoded) inputs: use the data as annc encodes it
                dte = as_data((Xte, yte))
                out["seed_train"] = seed_acc((W, b), acts, dtr.X, dtr.y, dtr.classes)
                out["seed_test"] = seed_acc((W, b), acts, dte.X, dte.y, dtr.classes)
                out["seed_w"] = int(sum(np.count_nonzero(np.abs(np.asarray(w)) > 1e-9) for w in W))
            print(json.dumps(out), flush=True)
