"""The hidden activations: what each one means, and the facts about it the layers below the
formulations need (the spec, the network, sizes, magnitudes, the MIP starts).

:data:`HIDDEN` maps a name of the ``.ann`` language (``hidden 4 relu``) to its
:class:`Activation`; its keys are the spec's hidden activations and the keys of the
formulation registry (:data:`annc.formulations.ACTIVATIONS`, which holds the
mathematics of the MIP: a test checks the two agree).  A unit with pre-activation
``pre = a W + b`` outputs ``forward(pre)``::

    binary:  1[pre >= 0]                 in [0, 1]       step
    relu:    max(pre, 0)                 >= 0, <= |pre|  positively homogeneous
    sign:    2 1[pre >= 0] - 1           in [-1, 1]      step

The output layer is ``linear`` (``pre`` itself, :func:`annc.core.network.activate`) and is
not in the table.

**Range.**  Outputs lie in ``[low, high]``; ``high = None`` means ``|f(pre)| <= |pre|``
(ReLU), so a bound ``R`` on the pre-activations bounds the outputs (:meth:`Activation.bound`,
propagated layer by layer in :mod:`annc.io.magnitudes`).

**Scaling.**  For ``c > 0``: a *step* function has ``f(c pre) = f(pre)``, so scaling a
unit's weights and bias by ``c`` keeps its function; a *homogeneous* one has
``f(c pre) = c f(pre)``, so the scale is undone by dividing the next layer's weights
from it by ``c`` (:mod:`annc.training.warmstart.pool.repair` moves networks into their boxes this way).

**Products and sizes.**  The next layer's products ``a x'`` of a weight ``a`` in
``[aL, aU]`` (``W = max(|aL|, |aU|)``) and this unit's output ``x'`` are linearised as
``products``:

* :data:`EXACT`: ``z = a h'`` with the unit's indicator ``h'`` (binary and sign, whose
  output is ``2h' - 1``): per (row, input, unit) 1 column and 4 rows (10 entries), every
  big-M at most ``W``;
* :data:`MCCORMICK`: piecewise McCormick in ``P`` pieces per weight (ReLU; a relaxation,
  exact on a weight grid), big-M at most ``2 W R`` with ``R`` the bound of ``x'``.

``pre_entries`` is the number of entries per input in a next-layer unit's pre-activation
(sign: ``a s' = 2 z - a``, two), and ``unit`` the unit's own block per (row, unit)
(:class:`UnitSize`), as :func:`annc.core.limits.model_size` counts them.

**ONNX.**  ``onnx(graph, pre)`` adds the ops that compute ``forward`` on the tensor named
``pre`` to the graph :mod:`annc.export.onnx_export` builds, and returns the output's name; the
graph has ``op(kind, inputs, **attributes)``, ``const(stem, value)`` and ``DOUBLE`` (the
ONNX element type of doubles).  binary: ``Cast(GreaterOrEqual(pre, 0))``; sign: that
times 2, minus 1; relu: ``Relu``.  Each op is the one numpy performs, on the same doubles.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

EXACT = "exact"  # z = a h' with the unit's 0/1 indicator (rows zu/zl/za/zb)
MCCORMICK = "mccormick"  # piecewise McCormick in P pieces per weight (a relaxation)


@dataclass(frozen=True)
class UnitSize:
    """A unit's own block per (row, unit): its columns and rows, how many of its rows hold
    the unit's pre-activation, and its other entries."""

    columns: int
    rows: int
    pre_rows: int
    entries: int


@dataclass(frozen=True)
class Activation:
    """One hidden activation (see the module docstring for each field)."""

    name: str
    forward: Callable[[np.ndarray], np.ndarray]  # the network's meaning, elementwise
    low: float  # outputs lie in [low, high]
    high: float | None  # None: |f(pre)| <= |pre|, bounded by the pre-activations
    step: bool  # f(c pre) = f(pre) for c > 0
    homogeneous: bool  # f(c pre) = c f(pre) for c > 0
    products: str  # EXACT or MCCORMICK: how the next layer's products are linearised
    pre_entries: int  # entries per input in a next-layer unit's pre-activation row
    unit: UnitSize
    onnx: Callable  # onnx(graph, pre name) -> output name: the ONNX ops of forward (annc.export.onnx_export)

    def __post_init__(self):
        if self.products not in (EXACT, MCCORMICK):
            raise ValueError(f"activation {self.name}: products must be {EXACT!r} or {MCCORMICK!r}")

    @property
    def bounded(self) -> bool:
        return self.high is not None

    def bound(self, reach: float) -> float:
        """The largest ``|output|`` when ``|pre| <= reach``."""
        return reach if self.high is None else max(abs(self.low), abs(self.high))


def _binary(pre: np.ndarray) -> np.ndarray:
    return (pre >= 0).astype(float)


def _relu(pre: np.ndarray) -> np.ndarray:
    return np.maximum(pre, 0.0)


def _sign(pre: np.ndarray) -> np.ndarray:
    return np.where(pre >= 0, 1.0, -1.0)


def _onnx_step(g, pre: str) -> str:
    """``1[pre >= 0]`` as doubles."""
    return g.op("Cast", [g.op("GreaterOrEqual", [pre, g.const("zero", np.float64(0.0))])], to=g.DOUBLE)


def _onnx_relu(g, pre: str) -> str:
    return g.op("Relu", [pre])


def _onnx_sign(g, pre: str) -> str:
    """``2 step - 1``."""
    return g.op("Sub", [g.op("Mul", [_onnx_step(g, pre), g.const("two", np.float64(2.0))]),
                        g.const("one", np.float64(1.0))])


_INDICATOR = UnitSize(columns=1, rows=2, pre_rows=2, entries=2)  # h; rows on, off

HIDDEN: dict[str, Activation] = {a.name: a for a in (
    Activation("binary", _binary, 0.0, 1.0, step=True, homogeneous=False, products=EXACT,
               pre_entries=1, unit=_INDICATOR, onnx=_onnx_step),
    Activation("relu", _relu, 0.0, None, step=False, homogeneous=True, products=MCCORMICK,
               pre_entries=1, unit=UnitSize(columns=2, rows=5, pre_rows=4, entries=8),  # h, q; on/off/ra/rb/rc
               onnx=_onnx_relu),
    Activation("sign", _sign, -1.0, 1.0, step=True, homogeneous=False, products=EXACT,
               pre_entries=2, unit=_INDICATOR, onnx=_onnx_sign),
)}


def takes_pieces(name: str) -> bool:
    """Whether a layer after ``name`` units uses ``P`` (McCormick pieces)."""
    return name in HIDDEN and HIDDEN[name].products == MCCORMICK
