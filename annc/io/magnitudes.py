"""Numbers a solver cannot use, checked from the spec and the data before any model is built.

:func:`check_numbers` enforces the two limits of :mod:`annc.core.limits` and refuses a spec at
the line of the setting that makes the number (:func:`annc.io.spec.locate`):

* every number of the model stays below :data:`~annc.core.limits.LARGEST` in magnitude;
* the largest big-M is at most :data:`~annc.core.limits.MAX_M_OVER_EPS` times eps.  A binary
  unit is on iff ``pre >= eps`` and off iff ``pre <= 0``, and the rows ``pre <= M h``
  must resolve that eps.  A double carries about 16 significant digits, so a row whose
  entries are of size M is uncertain by about ``1e-16 M`` per term, ``1e-12 M`` for a
  row of 10^4 terms: past ``M / eps = 1e12`` eps is below the row's own rounding noise
  and no solver tolerance can tell on from off.  (The softer condition, ``M * 1e-6``
  well below eps, is only a warning: :func:`annc.formulations.m_warnings`.)

The magnitudes follow the interval bounds of the formulations, in closed form with one
scalar per layer (the worst data row), with ``W = max(|wL|, |wU|)`` and
``B = max(|bL|, |bU|)`` the layer's boxes and ``n`` its number of inputs::

    layer 0 (data):          R_0 = W S + B            S = max_u sum_i |x_ui|
    fed by bounded units:    R_l = n W m + B          m = max(|low|, |high|): 1 for binary, sign
    fed by unbounded units:  R_l = n W R_(l-1) + B    (ReLU: |max(pre, 0)| <= |pre|)
    exact products:          M <= W                   (binary, sign: z = a h')
    McCormick products:      M <= 2 W R_(l-1)         (ReLU); on a weight grid: M <= R_(l-1)

reading the range and the products of each activation from :mod:`annc.core.activations`.

``R_l`` bounds the layer's pre-activations, its units' big-M (on/off, ReLU rows) and
its outputs; the output layer's diversifying (``nll``) or winning (``errors``) rows
have ``M <= 2 R_L + eps`` (the losses whose ``output_big_m`` is set in
:data:`annc.core.losses.LOSS`).  A user's numeric M replaces the layer's big-M values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.activations import EXACT, HIDDEN, MCCORMICK
from ..core.errors import SpecError
from ..core.limits import LARGEST, MAX_M_OVER_EPS
from ..core.losses import LOSS
from .spec import locate


def _box(bounds) -> float:
    return max(abs(float(bounds[0])), abs(float(bounds[1])))


@dataclass(frozen=True)
class _Reach:
    """The largest magnitude of a layer's pre-activations, and how it arises."""

    layer: int
    value: float
    why: str
    bias: float  # the bias box's share of ``value``

    @property
    def setting(self) -> str:
        """The setting that makes most of ``value``: 'bias' or 'weights'."""
        return "bias" if self.bias >= self.value - self.bias else "weights"


def reaches(spec, X: np.ndarray) -> list[_Reach]:
    """``R_l`` for every layer (see the module docstring), with the terms that make it."""
    with np.errstate(over="ignore", invalid="ignore"):
        S = float(np.abs(X).sum(1).max()) if X.size else 0.0
    out, prev = [], None
    for l, ls in enumerate(spec.layers):
        W, B = _box(ls.weight_bounds), _box(ls.bias_bounds)
        n = spec.inputs if l == 0 else spec.layers[l - 1].units
        if l == 0:
            value, why = W * S + B, (f"weights box {W:g} x {S:.6g} (the largest sum of |x| "
                                     f"over a data row) + bias box {B:g}")
        else:
            act = HIDDEN[spec.layers[l - 1].activation]
            m = act.bound(prev)  # the inputs' largest magnitude
            value = n * W * m + B
            up_to = f" up to {m:.6g}" if not act.bounded or m != 1 else ""
            why = f"{n} {act.name} inputs{up_to} x weights box {W:g} + bias box {B:g}"
        prev = value
        out.append(_Reach(l, value, why, B))
    return out


def _largest_m(spec, reach: list[_Reach]) -> tuple[float, int]:
    """(largest big-M of the model, its layer) from the bounds ``reach``."""
    best, where = 0.0, 0
    for l, ls in enumerate(spec.layers):
        valid = 0.0
        if l > 0:  # the products' rows
            W = _box(ls.weight_bounds)
            products = HIDDEN[spec.layers[l - 1].activation].products
            valid = W if products == EXACT else 2 * W * reach[l - 1].value
            if products == MCCORMICK and ls.weight_grid is not None:
                valid = reach[l - 1].value  # the exact grid products' rows y_p <= qU' lambda_p
        if l < len(spec.hidden):
            valid = max(valid, reach[l].value)  # the units' rows
        elif LOSS[spec.loss].output_big_m:
            valid = max(valid, 2 * reach[l].value + spec.eps)  # diversifying / winning rows
        has_rows = l > 0 or l < len(spec.hidden) or LOSS[spec.loss].output_big_m
        m = valid if ls.big_m is None or not has_rows else ls.big_m
        if m > best or not math.isfinite(m):
            best, where = m, l
    return best, where


def _layer_name(spec, l: int) -> str:
    return "the output layer" if l == len(spec.hidden) else f"hidden layer {l + 1}"


def check_numbers(spec, data) -> None:
    """Refuse (:class:`SpecError`, at the spec line that sets it) a spec and data whose
    model would hold a number of :data:`LARGEST` or more, or a big-M over
    :data:`MAX_M_OVER_EPS` times eps; see the module docstring."""
    X = np.asarray(data.X, dtype=float)
    reach = reaches(spec, X)
    for r in reach:
        if not r.value < LARGEST:  # also inf and nan
            where = f" {_data_culprit(X, data)}" if r.layer == 0 and X.size else ""
            _refuse(spec, r.setting, r.layer,
                    f"the pre-activations of {_layer_name(spec, r.layer)} reach {r.value:.6g} = "
                    f"{r.why}{where}; annc keeps every number of the model below {LARGEST:g} "
                    "(solvers refuse larger values or read them as infinite): narrow 'weights' "
                    "or 'bias', or rescale the data")
    big, layer = _largest_m(spec, reach)
    ls = spec.layers[layer]
    key, source = ("M", f"M {ls.big_m:g}") if ls.big_m is not None else \
        (reach[layer].setting, f"M auto from {reach[layer].why}")
    if not big < LARGEST:
        _refuse(spec, key, layer, f"the big-M of {_layer_name(spec, layer)} reaches {big:.6g} "
                f"({source}); annc keeps every number of the model below {LARGEST:g}")
    loss = LOSS[spec.loss]
    if loss.floor_of_eps is not None:
        floor = loss.floor_of_eps(spec.eps, spec.classes, len(X))  # nll: eps sum_k k c_u(k) <= eps (J-1) N
        if not floor < LARGEST:
            _refuse(spec, "eps", None, f"eps {spec.eps:g} makes the loss floor of a data row up "
                    f"to {floor:.6g} ({loss.floor_why}); annc keeps every number "
                    f"of the model below {LARGEST:g}")
    ratio = big / spec.eps if spec.eps > 0 else math.inf
    if not ratio <= MAX_M_OVER_EPS:
        _refuse(spec, ("eps", key), layer,
                f"eps {spec.eps:g} is lost next to the big-M of {_layer_name(spec, layer)}: "
                f"up to {big:.6g} ({source}), {ratio:.3g} times eps; past {MAX_M_OVER_EPS:g} "
                "times eps the on/off separation is below the rounding noise of double "
                "precision: raise 'eps', or narrow 'weights', 'bias' or 'M'")


def _refuse(spec, key: str, layer: int | None, message: str):
    """Raise a :class:`SpecError` at the line of ``spec`` that sets ``key`` for ``layer``."""
    raise SpecError([locate(spec, key, layer, message)])


def _data_culprit(X: np.ndarray, data) -> str:
    """Where the data's largest row sum of |x| is: its file row and largest column."""
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.abs(X).sum(1)
    r = int(np.nanargmax(np.where(np.isfinite(sums), sums, np.inf)))
    c = int(np.argmax(np.abs(X[r])))
    lines = getattr(data, "lines", None)
    row = f"row {int(lines[r])}" if lines is not None else f"sample {r + 1}"
    features = list(getattr(data, "features", []))
    col = f"column '{features[c]}'" if c < len(features) else f"column {c + 1}"
    return f"(the largest is {getattr(data, 'path', 'the data')} {row}, whose largest cell is {col})"
