"""The rows of ``bench/real/harness.py``'s runs (``runs.jsonl``) grouped and averaged, for its
summary's tables (``bench/real/report.py``) and checks (``bench/real/checks.py``).

Every helper reads its keys defensively (``r.get``), so older rows without a key still summarise.
"""
from __future__ import annotations

import math
import statistics

from bench.real.baselines import BASELINES


def ordered(records, key, order):
    seen = list(dict.fromkeys(r[key] for r in records))
    return [k for k in order if k in seen] + [k for k in seen if k not in order]


def means(rs):
    """Mean test accuracy and mean non-zero weights over the runs that produced a network."""
    accs = [r["test_accuracy"] for r in rs if r.get("test_accuracy") is not None]
    nnz = [r["nonzero_weights"] for r in rs if r.get("nonzero_weights") is not None]
    return (statistics.mean(accs) if accs else None), (statistics.mean(nnz) if nnz else None)


def train_mean(rs) -> str:
    accs = [r["train_accuracy"] for r in rs if r.get("train_accuracy") is not None]
    return "-" if not accs else f"{100 * statistics.mean(accs):.1f}"


def median(values):
    vals = [math.inf if v == "inf" else v for v in values if v is not None and v != "-inf"]
    return statistics.median(vals) if vals else None


def is_annc(method: str) -> bool:
    return method not in BASELINES
