"""Time the folds need (no cap) on split 0 of each set, the plan sized for a given limit, with the
time at which each width's group ended: ``python bench/issue36_work/fold_times.py 30 xor,wine``."""
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import numpy as np
from sklearn.model_selection import StratifiedShuffleSplit
from realdata_sets import SETS
from realdata_annc import spec_text
from annc.app import api
from annc.training import cvselect as cs
from annc.training.context import RunContext

tl = float(sys.argv[1])
for name in sys.argv[2].split(","):
    loader, H = SETS[name]
    X, y = loader()[:2]
    tr, _ = next(StratifiedShuffleSplit(n_splits=1, test_size=0.3, random_state=0).split(np.zeros(len(y)), y))
    sub = (lambda A, i: A.iloc[i] if hasattr(A, "iloc") else A[i])
    data = api.as_data((sub(X, tr), np.asarray(y)[tr]))
    spec = api.as_spec(spec_text(data.X.shape[1], H, len(np.unique(y)), "", "binary"))
    if not (cs.by_default(data) and cs.applies(spec, data, tl)):
        print(name, "no CV")
        continue
    cap = tl * cs.select_share(len(data.y)) * cs.FOLDS_SHARE
    t = time.perf_counter()
    sel = cs.cross_validate(spec, data, time_limit=tl, ctx=RunContext(), log=print)
    print(f"{name}: folds+choice {time.perf_counter() - t:.1f}s (cap at {tl:g}: about {cap:.1f}s) "
          f"chose {sel.label if sel else None}", flush=True)
