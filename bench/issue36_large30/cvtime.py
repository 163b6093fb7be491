"""The folds' own time on one split, with no cap: ``python bench/issue36_large30/cvtime.py SET SPLIT [LIMIT]``.

Runs ``annc.training.modelselect.cvselect.cross_validate`` on split ``SPLIT`` of ``SET`` (``bench/realdata_sets.py``,
the default recipe at width 4) with the plan of ``LIMIT`` seconds (default 60) and no clock cap, and
prints the log with its seconds and each setting's CV accuracy and mean non-zero weights."""
import sys, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import numpy as np
from realdata_sets import splits
from realdata_annc import spec_text
from annc.app.api import as_data, as_spec
from annc.training.modelselect.cvselect import cross_validate
from annc.training.context import RunContext
name, split = sys.argv[1], int(sys.argv[2])
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
for i, Xtr, ytr, Xte, yte in splits(name, split + 1):
    if i != split: continue
    data = as_data((Xtr, ytr)); k = len(np.unique(ytr))
    spec = as_spec(spec_text(data.inputs, 4, k), data)
    t0 = time.perf_counter()
    log = lambda m: print(f"{time.perf_counter()-t0:6.1f} {m}", flush=True)
    sel = cross_validate(spec, data, time_limit=limit, ctx=RunContext(), log=log)
    print("total", round(time.perf_counter() - t0, 1), sel and sel.label)
    if sel:
        for j, l in enumerate(sel.labels):
            print(f"  {l:40s} {sel.mean(j):.4f} {sel.nonzeros(j):.1f}")
