"""annc's side of ``bench/real/harness.py``: the recipes, the spec and one annc run.

A recipe is a spec ``input d / hidden H <act> / output k`` plus the recipe's lines
(``RECIPES``; ``default`` adds nothing, so annc's own defaults apply, including its input
scaling), trained by ``annc.app.api.train_api`` on the RAW features (a data frame's text
columns as they are: annc one-hot encodes them, and ``d`` counts the encoded inputs) with
HiGHS, one thread, ``--time-limit`` seconds.  ``METHODS`` maps every method name (the
recipes, ``default_select`` and the baselines of ``bench.real.baselines``) to its runner.
"""
from __future__ import annotations

import math
import time
from functools import partial

import numpy as np

from annc.app.api import as_data, train_api
from annc.core.errors import AnncError
from annc.solve.verdict import search_record
from bench.real.baselines import BASELINES, balanced_accuracy

# -- annc recipes: lines appended to the default spec (multi-line text, no ';') -------------
RECIPES = {  # name: (hidden activation, extra spec lines)
    "default": ("binary", ""),  # annc's recipe: loss errors + penalty l0 0.5 + eps 0.001
    "default_before": ("binary", "loss errors\npenalty l0 auto"),  # the recipe before 2026-11-23 (and its start search)
    "hinge_l0": ("binary", "loss hinge 0.5\npenalty l0 0.01"),
    "errors_l0": ("binary", "loss errors\npenalty l0 0.01"),
    "errors": ("binary", "loss errors"),  # no penalty: what parsimony costs or gains
    "nll": ("binary", "loss nll"),  # the paper's objective
    "relu_default": ("relu", ""),
    "errors_l0_0.25": ("binary", "loss errors\npenalty l0 0.25"),  # one weight costs a quarter of an error
    "errors_l0_0.5": ("binary", "loss errors\npenalty l0 0.5"),
    "errors_l0_1": ("binary", "loss errors\npenalty l0 1"),
    "errors_l0_2": ("binary", "loss errors\npenalty l0 2"),
    "errors_l0_4": ("binary", "loss errors\npenalty l0 4"),
    "errors_share_0.25": ("binary", "loss errors\npenalty l0 {share:0.25}"),
    "errors_l0_0.5_std": ("binary", "loss errors\npenalty l0 0.5\nscale standard"),
    "errors_l0_0.5_eps": ("binary", "loss errors\npenalty l0 0.5\neps 0.001"),
    "errors_l0_0.5_std_eps": ("binary", "loss errors\npenalty l0 0.5\nscale standard\neps 0.001"),
    "default_std": ("binary", "scale standard"),  # the default recipe on standardised features
    "default_eps_0.01": ("binary", "eps 0.01"),  # ... with the dataclass's eps
    "default_eps_0.003": ("binary", "eps 0.003"),
    "default_l0_0.25": ("binary", "penalty l0 0.25\neps 0.001"),  # the recipe with a quarter error per weight
    "hinge_0.5_l0_0.5": ("binary", "loss hinge 0.5\npenalty l0 0.5\neps 0.001"),  # the recipe with a hinge for errors
    "default_l0_0.1": ("binary", "penalty l0 0.1\neps 0.001"),
    "default_no_penalty": ("binary", "penalty none\neps 0.001"),
    "hinge_1_l0_0.5": ("binary", "loss hinge 1\npenalty l0 0.5\neps 0.001"),
    "default_l0_1": ("binary", "penalty l0 1\neps 0.001"),  # the recipe at one error per weight
    "default_eps_0.03": ("binary", "eps 0.03"),
    "default_eps_0.1": ("binary", "eps 0.1"),
    "default_eps_0.2": ("binary", "eps 0.2"),  # margins of the order of an l1-SVM's on breast_cancer
    "default_eps_0.3": ("binary", "eps 0.3"),
    "nll_l0_0.05": ("binary", "loss nll\npenalty l0 0.05"),  # the paper's loss, a weight worth 0.05 of it
    "nll_l0_0.01": ("binary", "loss nll\npenalty l0 0.01"),
}


def spec_text(d: int, H: int, k: int, extra: str = "", act: str = "binary") -> str:
    """The default spec (``input``, ``hidden H <act>``, ``output`` only) plus ``extra``."""
    lines = [f"input {d}", f"hidden {H} {act}", f"output {k}"]
    lines += [line for line in extra.splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def _gap(value):
    """A gap for JSON: None without a bound, "inf" when infinite."""
    if value is None:
        return None
    return "inf" if math.isinf(value) else float(value)


# -- methods: each (Xtr, ytr, Xte, yte, H, split, time_limit) -> dict ---------------------
class _Share:
    """``{share:C}`` in a recipe: the l0 weight ``C * rows / weights``."""

    def __init__(self, rows_per_weight: float):
        self.rows_per_weight = rows_per_weight

    def __format__(self, c: str) -> str:
        return f"{float(c) * self.rows_per_weight:.6g}"



def run_annc(Xtr, ytr, Xte, yte, H, split, time_limit, *, recipe: tuple[str, str], select: bool | None = None,
             keywords: dict | None = None) -> dict:
    """One annc run of ``recipe``; ``keywords``: more of ``train_api``'s (``missing="impute"``, say)."""
    act, extra = recipe
    keywords = dict(keywords or {})
    t0, c0 = time.perf_counter(), time.process_time()
    try:  # annc refusing the data (a column mixing numbers and words, say) is a result: an error row
        d, k = as_data((Xtr, ytr), missing=keywords.get("missing")).inputs, len(np.unique(ytr))  # d: text one-hot
        if "{share" in extra:  # a weight per weight of share * rows / weights (all weights cost share of the rows)
            extra = extra.format(share=_Share(len(ytr) / (d * H + H * k)))
        spec = spec_text(d, H, k, extra, act)
        r = train_api(spec, (Xtr, ytr), (Xte, yte), time_limit=time_limit, threads=1, out_dir=None,
                      select=select, **keywords)
    except AnncError as e:
        return {"status": "error", "error": str(e), "seconds": round(time.perf_counter() - t0, 2),
                "test_accuracy": None, "train_accuracy": None, "nonzero_weights": None, "gap": None,
                **search_fields({})}
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    v = r.verdict
    meta = getattr(r.network, "meta", None) or {}
    steps = meta.get("steps") if isinstance(meta.get("steps"), list) else []
    step0 = steps[0] if steps and isinstance(steps[0], dict) else {}
    bound = v.lower_bound if v is not None else step0.get("lower_bound")
    return {"status": r.status.value, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
            "test_accuracy": r.test_accuracy,
            "train_accuracy": r.train_accuracy, "nonzero_weights": r.network.nonzero_weights(),
            "balanced_test_accuracy": balanced_accuracy(yte, r.predict(Xte)),
            "gap": _gap(v.gap if v is not None else None),
            "objective": v.objective if v is not None else step0.get("objective"),  # the training objective
            "lower_bound": _num(bound),
            "source": v.source if v is not None else step0.get("network_from"),
            "bound_source": step0.get("bound_source"),
            "times": step0.get("times"),
            "ended": step0.get("ended"),  # why the MIP's run ended (proven, stalled, the time limit)
            "stall": (step0.get("solver") or {}).get("stall"),  # the stall rule's record (work checks)  # the parts of the MIP's wall time (build, start pool, ..., finish)
            "selected": (meta.get("selection") or {}).get("chosen_label"),  # model selection's choice, if any
            "cv_estimate": _num((meta.get("selection") or {}).get("cv_estimate")),
            **search_fields(meta)}


def _num(x):
    """A number for JSON: float, "inf"/"-inf" when infinite, None when not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        return None
    x = float(x)
    if math.isnan(x):
        return None
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def search_fields(meta: dict) -> dict:
    """What ``meta["steps"][0]["search"]`` (:func:`annc.solve.verdict.search_record`) says about the start search and what the MIP added; every key
    read defensively (None when absent or malformed: annc writes these only from issue 30 on)."""
    s = search_record(meta) or {}  # meta["steps"][0]["search"] (older files: meta["search"])
    pool = s.get("pool")
    pool = ([{"name": str(e.get("name")), "objective": _num(e.get("objective"))} for e in pool if isinstance(e, dict)]
            if isinstance(pool, list) else None)
    cert = s.get("certificate")
    if isinstance(cert, dict):
        sub = cert.get("sub_mips")
        cert = {"size": None if cert.get("size") is None else str(cert.get("size")),
                "sub_mips": int(sub) if isinstance(sub, (int, np.integer)) and not isinstance(sub, bool) else None,
                "text": None if cert.get("text") is None else str(cert.get("text"))}
    else:
        cert = None
    added = s.get("added")
    found = s.get("found_by")
    return {"start_objective": _num(s.get("start_objective")), "pool": pool, "pool_best": _num(s.get("pool_best")),
            "best_linear": _num(s.get("best_linear")), "final_objective": _num(s.get("final_objective")),
            "found_by": None if found is None else str(found), "certificate": cert,
            "added": added if added in ("improved", "certificate", "none", "kept") else None}



OVO_UNITS = 4  # hidden step units of each pair's network (the "4 units per pair")


def run_ovo(Xtr, ytr, Xte, yte, H, split, time_limit, *, workers: int = 2) -> dict:
    """annc's one-vs-one (``ensemble="ovo"``): one network of :data:`OVO_UNITS` binary units per pair of
    classes, the default recipe, each pair MIP a Dask task on a local cluster of ``workers`` processes,
    the pairs sharing the run's ``time_limit``; ``H`` (the set's one-MIP width) is not used."""
    d, k = as_data((Xtr, ytr)).inputs, len(np.unique(ytr))
    spec = spec_text(d, OVO_UNITS, k)
    limit = time_limit
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        r = train_api(spec, (Xtr, ytr), (Xte, yte), time_limit=limit, threads=1, out_dir=None, ensemble="ovo",
                      workers=workers)
    except AnncError as e:
        return {"status": "error", "error": str(e), "seconds": round(time.perf_counter() - t0, 2),
                "test_accuracy": None, "train_accuracy": None, "nonzero_weights": None, "gap": None,
                **search_fields({})}
    return {"status": r.status.value, "seconds": round(time.perf_counter() - t0, 2),
            "cpu_seconds": round(time.process_time() - c0, 2), "test_accuracy": r.test_accuracy,
            "train_accuracy": r.train_accuracy, "nonzero_weights": r.network.nonzero_weights(), "gap": None,
            "pairs": len(r.members), "workers": workers, **search_fields({})}


METHODS = {name: partial(run_annc, recipe=recipe) for name, recipe in RECIPES.items()}
METHODS["ovo_w2"] = run_ovo  # one-vs-one, 4 units a pair, on 2 Dask workers (issue 39)
METHODS.update({**BASELINES,
                # the default recipe chosen by --select (annc.training.modelselect.selection's default grid, 25% held
                # out of the training part; each candidate and the final run get the time limit)
                "default_select": partial(run_annc, recipe=RECIPES["default"], select=True),
                # the default recipe as written, without cross-validation (annc before issue 36)
                "default_no_select": partial(run_annc, recipe=RECIPES["default"], select=False)})
