"""What every writer refuses before it writes a byte: a model no file format can express.

Shared by the MPS, LP and PuLP writers, so a model is refused the same way in every
format (a ValueError naming the first problem).
"""
from __future__ import annotations

import numpy as np


def check_model(model) -> None:
    """Reject what no file format can express (NaN / infinite data, impossible bounds)."""
    n, m = model.num_cols, model.num_rows
    if model.A.shape != (m, n):
        raise ValueError(f"matrix shape {model.A.shape} != (rows {m}, columns {n})")
    for what, arr, size in (("lb", model.lb, n), ("ub", model.ub, n), ("integer", model.integer, n),
                            ("obj", model.obj, n), ("sense", model.sense, m), ("rhs", model.rhs, m)):
        if len(arr) != size:
            raise ValueError(f"model.{what} has length {len(arr)}, expected {size}")
    if not _all_finite(model.A.data):
        raise ValueError("matrix has a NaN or infinite coefficient")
    if not np.all(np.isfinite(model.obj)):
        raise ValueError("objective has a NaN or infinite coefficient")
    if not np.all(np.isfinite(model.rhs)):
        raise ValueError("a right-hand side is NaN or infinite")
    if np.any(np.isnan(model.lb)) or np.any(np.isnan(model.ub)):
        raise ValueError("a bound is NaN")
    if np.any(model.lb == np.inf) or np.any(model.ub == -np.inf):
        raise ValueError("a lower bound is +inf or an upper bound is -inf")
    crossed = np.flatnonzero(np.asarray(model.lb) > np.asarray(model.ub))
    if crossed.size:
        j = int(crossed[0])
        raise ValueError(
            f"column {model.col_names()[j]} has lower bound {float(model.lb[j])!r} > upper bound "
            f"{float(model.ub[j])!r} ({crossed.size} such columns): no file can carry that to every "
            "solver (Xpress and CBC refuse to read it)")
    bad = ~np.isin(np.asarray(model.sense), ("L", "G", "E"))
    if np.any(bad):
        raise ValueError(f"row sense {model.sense[np.argmax(bad)]!r} is not L, G or E")


def check_names(model) -> None:
    """The name blocks must cover the columns and rows exactly."""
    if (sum(b.size for b in model.var_blocks) != model.num_cols
            or sum(b.size for b in model.row_blocks) != model.num_rows):
        raise ValueError("name blocks do not match the model size")


def _all_finite(v: np.ndarray, chunk: int = 1 << 20) -> bool:
    return all(np.isfinite(v[s:s + chunk]).all() for s in range(0, len(v), chunk))
