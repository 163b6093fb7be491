"""Input scaling: the affine map a network applies to its features before its first layer.

A spec's ``scale`` setting (``minmax`` by default, ``standard`` or ``none``; ``annc
train --scale`` and ``annc compile --scale`` override it) fits one :class:`Scaling` on the
training data only, feature by feature::

    x' = (x - center) / width

* ``minmax``: ``center = min x``, ``width = max x - min x``: the training data lie in
  ``[0, 1]`` (features already in ``[0, 1]`` with both ends present, such as XOR's
  bits, are unchanged);
* ``standard``: ``center = mean x``, ``width = std x`` (population standard deviation):
  mean 0 and variance 1 on the training data;
* ``none``: the identity (``center = 0``, ``width = 1``).

The one-hot inputs of a text column (:mod:`annc.core.categories`) are never scaled: they
keep ``center = 0`` and ``width = 1`` under every kind, so they stay 0/1.

A feature constant on the training data gets ``width = 1`` (it is only shifted), so the
map is always defined and invertible.  The MIP is built on the scaled data (so the
weight and bias boxes of the spec, ``[-1, 1]`` by default, apply to scaled features, and
the big-M values are those of the scaled data); the map of a compiled model records the
fitted numbers, ``annc decode`` reads them from there, and every exported network
carries them (:attr:`annc.core.network.TrainedNetwork.scaling`): its forward pass, ``predict``,
``annc eval`` and every export apply them to raw features, so a user never scales by hand.

Why here and not scikit-learn's scalers: the map and the weights files must record the
two vectors and re-apply them without scikit-learn (an optional extra); the arithmetic
is one line each way.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import UsageError

SCALINGS = ("minmax", "standard", "none")


@dataclass(frozen=True)
class Scaling:
    """``x' = (x - center) / width`` per feature; ``kind`` says how it was fitted."""

    kind: str
    center: np.ndarray
    width: np.ndarray

    def __post_init__(self):
        c = np.asarray(self.center, dtype=float).reshape(-1)
        w = np.asarray(self.width, dtype=float).reshape(-1)
        if self.kind not in SCALINGS:
            raise UsageError(f"unknown scaling {self.kind!r}; expected one of {', '.join(SCALINGS)}")
        if c.shape != w.shape:
            raise UsageError(f"a scaling's center and width must have one number per feature; got "
                             f"{c.size} and {w.size}")
        if not (np.all(np.isfinite(c)) and np.all(np.isfinite(w)) and np.all(w > 0)):
            raise UsageError("a scaling's center must be finite and its width finite and positive")
        object.__setattr__(self, "center", c)
        object.__setattr__(self, "width", w)

    @property
    def features(self) -> int:
        return int(self.center.size)

    @property
    def identity(self) -> bool:
        return bool(np.all(self.center == 0.0) and np.all(self.width == 1.0))

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The scaled features of the rows of ``X`` (a float matrix as wide as the scaling)."""
        X = np.asarray(X, dtype=float)
        if self.identity:
            return X
        return (X - self.center) / self.width

    def to_dict(self) -> dict:
        return {"kind": self.kind, "center": self.center.tolist(), "width": self.width.tolist()}

    @classmethod
    def from_dict(cls, d) -> "Scaling":
        """The scaling of a parsed map or weights file; :class:`~annc.core.errors.UsageError`
        (callers re-raise it as their file's error) when it is not one."""
        if not isinstance(d, dict) or set(d) != {"kind", "center", "width"}:
            raise UsageError("a scaling is an object with exactly the fields kind, center and width")
        for key in ("center", "width"):
            v = d[key]
            if not isinstance(v, list) or not all(isinstance(t, (int, float)) and not isinstance(t, bool)
                                                  for t in v):
                raise UsageError(f"a scaling's {key} must be a list of numbers")
        return cls(d["kind"], np.array(d["center"], dtype=float), np.array(d["width"], dtype=float))


def fit_scaling(kind: str, X: np.ndarray, fixed=None) -> Scaling:
    """The :class:`Scaling` of ``kind`` fitted on the training features ``X`` (samples x
    features); the features of the boolean mask ``fixed`` (one-hot inputs of text columns:
    :mod:`annc.core.categories`) keep ``center 0`` and ``width 1``, whatever the kind."""
    X = np.asarray(X, dtype=float)
    n = X.shape[1]
    if fixed is not None and np.any(fixed):
        fitted = fit_scaling(kind, X)
        keep = np.asarray(fixed, dtype=bool)
        return Scaling(kind, np.where(keep, 0.0, fitted.center), np.where(keep, 1.0, fitted.width))
    if kind == "none" or X.shape[0] == 0:
        return Scaling(kind, np.zeros(n), np.ones(n))
    if kind == "minmax":
        center = X.min(axis=0)
        width = X.max(axis=0) - center
    elif kind == "standard":
        center = X.mean(axis=0)
        width = X.std(axis=0)
    else:
        raise UsageError(f"unknown scaling {kind!r}; expected one of {', '.join(SCALINGS)}")
    # constant features (or a range below round-off) are only shifted
    tiny = ~(width > 1e-12 * np.maximum(np.abs(center), 1.0))
    return Scaling(kind, center, np.where(tiny, 1.0, width))
