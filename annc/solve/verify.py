"""Verification that does not trust the solver.

Given a map and a solution vector ``x``: rebuild the model from the map's spec and
data (checking the data's fingerprint), check ``x`` against every bound, row and
integrality requirement, then run the decoded network forward with numpy on the
training data and compare: the outputs of exact units (binary ``h``, sign ``2h - 1``)
with the solver's (each activation module's ``mip_outputs``), the loss
of the exported network with the solver's objective, the accuracy.  For ReLU nets the
McCormick gap ``max |z - a q'|`` measures how far the relaxed products are from exact
(``product_gap``).  Columns are read through the model's layout, never by block name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core.errors import AnncError, DataError, MapError, SpecError
from ..core.network import TrainedNetwork
from ..core.rowweights import weights_of_record
from ..formulations import ACTIVATIONS, floor, network_loss
from ..io.data import Dataset, Inputs, array_digest, load_data
from ..io.spec import parse_spec
from ..io.varmap import columns_of, file_digest, map_spec, names_digest, scaling_of
from .compiler import Compiled, build


@dataclass
class Verification:
    status: str
    solver_objective: float | None
    point_objective: float
    network_loss: float
    train_accuracy: float
    solver_accuracy: float
    samples: int
    activation_mismatch: dict = field(default_factory=dict)  # layer -> (mismatches, total)
    violations: dict = field(default_factory=dict)  # Check.maxima(): the largest of each kind
    mccormick_gap: float | None = None
    problems: list = field(default_factory=list)
    relaxed: bool = False  # the model relaxes products: its objective is a bound, not the network's
    floor: float | None = None  # the formulation's lower bound on the optimum (annc.formulations.floor)

    @property
    def ok(self) -> bool:
        return not self.problems


def rebuild(vmap: dict, data_path: str | Path | None = None, map_path: str | Path | None = None):
    """The compiled model of ``vmap`` (read by :func:`~annc.io.mapfile.load_map`, so valid),
    rebuilt from its spec and (fingerprinted) data; ``map_path`` names it in errors."""
    where = f"map {map_path}" if map_path else "the map"
    data = _training_data(vmap, Path(data_path or vmap["data"]["file"]), where)
    data = _weighted(data, vmap.get("weights"), where)
    try:
        spec = parse_spec(vmap["spec"]["text"], vmap["spec"]["source"])
    except SpecError as e:
        raise MapError(f"{where}: the spec recorded in this map does not parse:\n{e}") from None
    try:  # no size limit: the model was built once already, with whatever limit it was given
        c = build(spec, data, name=vmap["model"]["name"], merge=vmap["options"]["merge"],
                  allow_small_m=vmap["options"].get("allow_small_m", False), max_nonzeros=math.inf)
    except SpecError as e:
        raise MapError(f"{where}: the spec recorded in this map does not fit its data:\n{e}") from None
    recorded = scaling_of(vmap)
    if recorded is not None and c.scaling is not None and recorded.to_dict() != c.scaling.to_dict():
        raise MapError(f"cannot verify: the scaling recorded in {where} is not the one its data give "
                       "(was the map edited?)")
    if names_digest(c.model.col_names()) != vmap["model"]["columns_sha256"]:
        raise MapError(f"cannot verify: the model rebuilt from {where} has other columns than the map "
                       "records (was the map edited, or compiled by another annc version?)")
    return c


def _weighted(data: Dataset, record, where: str) -> Dataset:
    """``data`` with the sample weights ``record`` (the map's ``weights``; none in a map without
    it: :mod:`annc.core.rowweights`) gives its samples."""
    w = weights_of_record(record, data.y, len(data.classes))
    if w is None:
        return data
    if len(w) != len(data.y):
        raise MapError(f"{where}: its weights record has {len(w)} sample weights for {len(data.y)} samples")
    cw = record.get("class_weight")
    return replace(data, weights=w, class_weight=None if cw is None else np.asarray(cw, float))


def _training_data(vmap: dict, path: Path, where: str) -> Dataset:
    """The training data of ``vmap`` read from ``path``: the very file the model was
    compiled from (its SHA-256), or the same table with its columns in another order, its
    features found by the names the map records (:func:`~annc.io.data.load_data`) and the
    table recognised by its digest (``data.content_sha256``; a map without one needs the
    very file).  An :class:`~annc.core.errors.AnncError` says why it is not."""
    if not path.is_file():
        what = "is not a file" if path.exists() else "not found"
        raise AnncError(f"cannot verify: training data {path} {what} (pass --data PATH, or --no-verify)")
    try:
        same_file = file_digest(path) == vmap["data"]["sha256"]
    except OSError as e:
        raise AnncError(f"cannot verify: cannot read training data {path} ({e.strerror or e})") from None
    other = f"cannot verify: {path} is not the data the model was compiled from"
    inputs_of = None if same_file else Inputs(map_spec(vmap).inputs, columns_of(vmap), vmap["classes"])
    try:
        data = load_data(path, label=vmap["options"].get("label"), classes=vmap["classes"], inputs_of=inputs_of,
                         missing=vmap["options"].get("missing"))  # missing cells as the compile read them
    except DataError as e:
        if not same_file:
            raise AnncError(f"{other} ({str(e).splitlines()[0]})") from None
        # the very data of the compile: an error here is the map's classes or label
        raise MapError(f"{where}: its classes or label column do not fit the data it was compiled "
                       f"from: {e}") from None
    if not same_file and array_digest(data.X, data.y) != vmap["data"].get("content_sha256"):
        raise AnncError(f"{other} (its SHA-256 differs from the one in {where})")
    return data


def verify(vmap: dict, x: np.ndarray, net: TrainedNetwork, *, status: str,
           solver_objective: float | None, data_path=None, map_path=None) -> Verification:
    """Rebuild the model of ``vmap`` and :func:`check` the solution ``x`` against it."""
    return check(rebuild(vmap, data_path, map_path), x, net, status=status, solver_objective=solver_objective)


def check(c: Compiled, x: np.ndarray, net: TrainedNetwork, *, status: str,
          solver_objective: float | None) -> Verification:
    """Check ``x`` and the exported ``net`` against the compiled model ``c``."""
    model, problem, layout = c.model, c.problem, c.model.layout
    point_obj = model.objective(x)
    feas = model.check(x)  # the one feasibility rule (annc.core.feasibility): solution tolerance

    outs = net.forward(problem.X)
    scores = outs[-1]
    counts = problem.counts
    n = problem.num_samples
    loss = network_loss(c.spec, scores, counts, [L.weight for L in net.layers])
    acc = problem.sample_accuracy(scores)  # of the samples, unweighted (counts may be weighted)
    x = np.asarray(x, dtype=float)
    o = x[layout.output]
    solver_acc = problem.sample_accuracy(o)

    mism, gap = {}, None
    for i, L in enumerate(layout.layers[:-1]):
        mip = ACTIVATIONS[L.activation].mip_outputs(x, L.units)
        if mip is not None:  # exact units: the exported ones must agree
            mism[i] = (int(np.sum(mip != outs[i])), int(mip.size))
    for prev, L in zip(layout.layers, layout.layers[1:]):
        g = ACTIVATIONS[L.fed_by].product_gap(x, L, prev.units)
        if g is not None:  # relaxed products (ReLU inputs): how far from exact
            gap = g if gap is None else max(gap, g)

    v = Verification(status, solver_objective, point_obj, loss, acc, solver_acc, n, mism, feas.maxima(), gap,
                     relaxed=layout.relaxed, floor=floor(problem))
    v.problems += _non_finite(feas, solver_objective, point_obj, loss, acc, solver_acc)
    v.problems += [_problem(w) for w in feas.violations if w.kind != "non-finite"]
    budget, used = c.spec.max_weights, net.nonzero_weights()
    if budget is not None and used > budget:
        v.problems.append(f"the exported network has {used} non-zero weights, more than the spec's "
                          f"max_weights {budget}")
    for i, (bad, total) in mism.items():
        if bad:
            v.problems.append(f"layer {i}: {bad} of {total} binary activations of the exported network "
                              "differ from the solver's")
    return v


def _problem(w) -> str:
    """The verification problem for the violation ``w`` (integrality, bound or row)."""
    if w.kind == "integrality":
        return f"not integral: {w.describe()} (a solver stopped at a limit may return a fractional point)"
    if w.kind == "row":
        return (f"{w.describe()}: the solution does not satisfy this model (is the file truncated, "
                "or from another model?)")
    return w.describe()


def _non_finite(feas, solver_objective, *numbers) -> list[str]:
    """Problems for a NaN or infinite value in the point (``feas``: its check), the
    solver's objective, or the objective, loss and accuracies recomputed from it."""
    out = []
    w, count = feas.worst("non-finite"), feas.count("non-finite")
    if w:
        out.append(f"{w.describe()} ({count} non-finite value{'s' if count > 1 else ''} in all): "
                   "not a solution")
    if solver_objective is not None and not np.isfinite(solver_objective):
        out.append(f"the solver's objective is {solver_objective}")
    labels = ("objective of the point", "loss of the exported network", "training accuracy",
              "solver's accuracy")
    out += [f"the {what} is {value} (not a finite number)" for what, value in zip(labels, numbers)
            if not np.isfinite(value)]
    return out
