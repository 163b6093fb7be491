"""The full MIP's work checks with the stall rule off (observe only): python probe.py SETS SPLITS TIME_LIMIT
(run with PYTHONPATH at the tree; prints the driver's stall record: checks done, the check of the last move)."""
import sys, json, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from realdata_sets import SETS, splits
from realdata_annc import spec_text
import numpy as np
from annc.app.api import as_data, train_api
names = sys.argv[1].split(','); nsp = int(sys.argv[2]); tl = float(sys.argv[3])
for name in names:
    H = SETS[name][1]
    for split, Xtr, ytr, Xte, yte in splits(name, nsp):
        d, k = as_data((Xtr, ytr)).inputs, len(np.unique(ytr))
        t0 = time.perf_counter()
        r = train_api(spec_text(d, H, k), (Xtr, ytr), (Xte, yte), time_limit=tl, threads=1, out_dir=None, stall=False)
        s = r.steps[0]
        m = s.model if hasattr(s, 'model') else None
        c = s.compiled if hasattr(s,'compiled') else None
        print(json.dumps({"set": name, "split": split, "sec": round(time.perf_counter()-t0,2),
            "extra": {k: v for k, v in s.result.extra.items()}, "status": s.result.status_text,
            "obj": r.verdict.objective, "lb": r.verdict.lower_bound, "fullmip": s.times.get("full MIP"), "ncols": int(s.compiled.model.num_cols), "nint": int(s.compiled.model.integer.sum()), "nrows": int(s.compiled.model.num_rows),
            "trace": s.trace[-5:]}, default=str), flush=True)
