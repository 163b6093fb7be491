"""Row weights: class weights and sample weights, as scikit-learn users expect them.

**The weight of a sample.**  ``w_n = cw[y_n] * sw_n``: its class's weight times its own
sample weight (1 when none is given).  The class weights are

* ``None``: every class 1 (no weighting);
* ``"balanced"``: ``cw[j] = N / (J * n_j)`` (scikit-learn's ``compute_class_weight``),
  ``N`` samples, ``J`` classes present, ``n_j`` samples of class ``j``: each class weighs
  ``N / J`` in all, so a classifier that always says the majority class no longer wins;
* a dict ``label -> weight`` (a label left out: 1).

**In the MIP.**  annc merges identical inputs into distinct rows ``u`` with per-class
counts ``c[u, j]`` (:mod:`annc.io.problem`), and every loss is a sum ``sum_uj c[u, j] l_uj``.
With weights, ``c[u, j]`` is the *sum of the weights* of the samples of class ``j`` with input
``x_u`` (``count x class weight x sample weight``), so the ``errors`` objective is exactly
the sum of the weights of the misclassified samples, and ``nll`` / ``hinge`` their weighted
sums.  The weights are kept as they are, fractions included: they are **not** rescaled to
integers.  Rescaling would make them whole (two balanced classes times ``2 n_0 n_1 / N``: each
class weighs the other's count) but the objective would grow by that factor (thousands), the
l0 penalty's half an error per weight would have to grow with it, and sample weights need not be
rational at all; the verdict's tolerances (:mod:`annc.solve.verdict`) are absolute plus
relative, so fractions need nothing of them.  Every place that used "a count of errors is a whole number" rounds
only when the weights are whole: the attainable-value bound
(:attr:`annc.io.problem.TrainingProblem.whole`), the conflict bound (its maximum flow; the LP
cover otherwise), the weight-level sub-MIPs' bounds (whole objective coefficients); without
weights nothing changes.

**Balanced accuracy.**  The mean over the classes present of the share of their samples
predicted right (scikit-learn's ``balanced_accuracy_score``).  Reports print it beside
accuracy when some class holds under :data:`MINORITY_SHARE` of the samples
(:func:`has_minority`); model selection scores folds by it when class weights are given.

A bad ``class_weight`` or ``sample_weight`` (an unknown label, a negative or non-finite
weight, the wrong type or length, all weights 0) is a :class:`~annc.core.errors.UsageError`.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import replace

import numpy as np

from .errors import UsageError

MINORITY_SHARE = 0.20  # a class under this share of the samples: balanced accuracy is printed beside accuracy
BALANCED = "balanced"


def _weight(value, what: str) -> float:
    """A finite number >= 0; :class:`UsageError` naming ``what`` otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise UsageError(f"{what} must be a number, not {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise UsageError(f"{what} must be a finite weight >= 0, not {value!r}")
    return v


def parse_class_weight(text: str | None):
    """``--class-weight``: ``balanced``, or ``LABEL=W,LABEL=W`` (a dict of the labels as written);
    None stays None.  UsageError for text of another form."""
    if text is None or text == BALANCED:
        return text
    out = {}
    for part in text.split(","):
        label, eq, value = part.partition("=")
        if not eq or not label.strip():
            raise UsageError(f"--class-weight must be 'balanced' or LABEL=WEIGHT,LABEL=WEIGHT (e.g. 1=10,0=1), "
                             f"not {text!r}")
        try:
            out[label.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--class-weight: the weight of class {label.strip()!r} must be a number, "
                             f"not {value!r}") from None
    return out


def check_class_weight(class_weight):
    """``class_weight`` if it is None, ``"balanced"`` or a dict of finite weights >= 0
    (the labels are checked against the data by :func:`class_weights`); else UsageError."""
    if class_weight is None or (isinstance(class_weight, str) and class_weight == BALANCED):
        return class_weight
    if isinstance(class_weight, str):
        raise UsageError(f"class_weight (--class-weight) must be 'balanced', a dict label -> weight or None, "
                         f"not {class_weight!r}")
    if not isinstance(class_weight, Mapping):
        raise UsageError(f"class_weight (--class-weight) must be 'balanced', a dict label -> weight or None, "
                         f"not {type(class_weight).__name__}")
    for label, w in class_weight.items():
        _weight(w, f"class_weight of class {label!r}")
    return class_weight


def class_weights(class_weight, y: np.ndarray, classes: list) -> np.ndarray | None:
    """The weight of each class (in the order of ``classes``; ``y`` the class indices of the
    samples), or None for no weighting; see the module docstring."""
    class_weight = check_class_weight(class_weight)
    if class_weight is None:
        return None
    J = len(classes)
    if isinstance(class_weight, str):  # "balanced"
        n = np.bincount(np.asarray(y, int), minlength=J).astype(float)
        present = n > 0
        out = np.ones(J)
        out[present] = len(y) / (present.sum() * n[present])
        return out
    out = np.ones(J)
    index = {str(c): i for i, c in enumerate(classes)}
    for label, w in class_weight.items():
        i = index.get(str(label))
        if i is None:
            raise UsageError(f"class_weight names label {label!r}, which is not a class of the data "
                             f"(the classes are {', '.join(map(str, classes))})")
        out[i] = _weight(w, f"class_weight of class {label!r}")
    return out


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """``sample_weight`` as ``n`` finite floats >= 0 (None: no sample weights); UsageError otherwise."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise UsageError(f"sample_weight must be {n} numbers, not {type(sample_weight).__name__}") from None
    if w.ndim != 1 or len(w) != n:
        raise UsageError(f"sample_weight must be {n} numbers (one per sample), not shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise UsageError("sample_weight must be finite weights >= 0 (it has a negative, NaN or infinite one)")
    return w


def sample_weights(y: np.ndarray, cw: np.ndarray | None, sw: np.ndarray | None) -> np.ndarray | None:
    """``w_n = cw[y_n] * sw_n`` (module docstring); None when neither is given.  All zero:
    UsageError (no sample would count)."""
    if cw is None and sw is None:
        return None
    w = np.ones(len(y)) if cw is None else np.asarray(cw, float)[np.asarray(y, int)]
    if sw is not None:
        w = w * sw
    if len(w) and not np.any(w > 0):
        raise UsageError("the class and sample weights give every sample weight 0: nothing to train on")
    return w


def with_weights(data, class_weight=None, sample_weight=None):
    """``data`` (an :class:`annc.io.data.Dataset`) with each sample's weight (:func:`sample_weights`)
    and its class weights recorded; UsageError for bad weights."""
    cw = class_weights(class_weight, data.y, data.classes)
    w = sample_weights(data.y, cw, check_sample_weight(sample_weight, len(data.y)))
    return replace(data, weights=w, class_weight=cw)


def indexed_class_weight(class_weight, labels: list):
    """``class_weight`` with the labels of a dict replaced by their index in ``labels`` (the
    estimator's sorted labels: annc trains on indices); an unknown label or a bad value: UsageError."""
    if not isinstance(check_class_weight(class_weight), Mapping):
        return class_weight
    unknown = [label for label in class_weight if label not in labels]
    if unknown:
        raise UsageError(f"class_weight names label {unknown[0]!r}, which is not a class of y "
                         f"(the classes are {', '.join(map(str, labels))})")
    return {labels.index(label): w for label, w in class_weight.items()}


def balanced_accuracy(y: np.ndarray, pred: np.ndarray, classes: int) -> float:
    """The mean over the classes present in ``y`` of their recall (module docstring)."""
    y, pred = np.asarray(y, int), np.asarray(pred, int)
    recalls = [float(np.mean(pred[y == j] == j)) for j in range(classes) if np.any(y == j)]
    return float(np.mean(recalls)) if recalls else float("nan")


def fold_score(y: np.ndarray, pred: np.ndarray, classes: int, balanced: bool) -> float:
    """Model selection's score of predictions ``pred`` on samples ``y``: balanced accuracy
    when the run has class weights (``balanced``), else accuracy; nan on no samples."""
    if not len(y):
        return math.nan
    return balanced_accuracy(y, pred, classes) if balanced else float(np.mean(np.asarray(pred) == np.asarray(y)))


def constant_score(y: np.ndarray, classes: int, balanced: bool) -> float:
    """:func:`fold_score` of the classifier that always says the largest class of ``y``."""
    n = np.bincount(np.asarray(y, int), minlength=classes)
    return 1.0 / max(int(np.sum(n > 0)), 1) if balanced else float(n.max()) / max(len(y), 1)


def has_minority(y: np.ndarray, classes: int) -> bool:
    """Some class present holds under :data:`MINORITY_SHARE` of the samples ``y``."""
    n = np.bincount(np.asarray(y, int), minlength=classes)
    n = n[n > 0]
    return len(y) > 0 and bool(np.any(n < MINORITY_SHARE * len(y)))


def accuracy_text(y: np.ndarray, pred: np.ndarray, classes: int) -> str:
    """``"accuracy 0.9400"``, with ``", balanced accuracy 0.5000"`` when a class is a
    minority (:func:`has_minority`): the one way reports print an accuracy."""
    acc = float(np.mean(np.asarray(pred) == np.asarray(y))) if len(y) else float("nan")
    text = f"accuracy {acc:.4f}"
    if has_minority(y, classes):
        text += f", balanced accuracy {balanced_accuracy(y, pred, classes):.4f}"
    return text


def weights_record(classes: list, cw: np.ndarray | None, w: np.ndarray | None, y: np.ndarray) -> dict | None:
    """What a map and a weights file record of the weights (None: no weights):
    ``class_weight`` (one per class, in the order of ``classes``) and, when sample weights
    were given too, ``sample_weight`` (one per sample: the full ``w_n``)."""
    if w is None:
        return None
    out = {"class_weight": None if cw is None else [float(v) for v in cw]}
    from_classes = np.ones(len(y)) if cw is None else np.asarray(cw, float)[np.asarray(y, int)]
    if not np.array_equal(from_classes, w):
        out["sample_weight"] = [float(v) for v in w]
    return out


def weights_of_record(record, y: np.ndarray, classes: int) -> np.ndarray | None:
    """The per-sample weights a map's ``weights`` record gives for samples ``y`` (None: a map
    without weights, or of an annc before them)."""
    if not isinstance(record, dict):
        return None
    if record.get("sample_weight") is not None:
        return np.asarray(record["sample_weight"], float)
    cw = record.get("class_weight")
    return None if cw is None else np.asarray(cw, float)[np.asarray(y, int)]


__all__ = ["BALANCED", "MINORITY_SHARE", "accuracy_text", "balanced_accuracy", "check_class_weight",
           "check_sample_weight", "class_weights", "constant_score", "fold_score", "has_minority", "parse_class_weight", "indexed_class_weight", "sample_weights",
           "weights_of_record", "weights_record", "with_weights"]
