"""A model format written outside annc: ``coo``, the model as text triplets.

``objective c_0 ... c_n-1``, then one line per column ``col name lb ub integer``, one per
row ``row name sense rhs``, one per non-zero ``a row col value`` (0-based indices), each
number in Python's shortest round-trip ``repr``.  ``FORMAT`` is its entry of
:data:`annc.io.writers.MODEL_FORMATS` (PuLP does not write it); tests/formulations/test_extensions.py
registers it at run time.
"""
from __future__ import annotations

from annc.io.writers import ModelFormat


def write(model, fh) -> None:
    A = model.A.tocoo()
    lines = ["objective " + " ".join(repr(float(v)) for v in model.obj)]
    lines += [f"col {n} {float(lo)!r} {float(hi)!r} {int(i)}"
              for n, lo, hi, i in zip(model.col_names(), model.lb, model.ub, model.integer)]
    lines += [f"row {n} {s} {float(r)!r}" for n, s, r in zip(model.row_names(), model.sense, model.rhs)]
    lines += [f"a {int(i)} {int(j)} {float(v)!r}" for i, j, v in zip(A.row, A.col, A.data)]
    fh.write("\n".join(lines) + "\n")


FORMAT = ModelFormat("coo", write)
