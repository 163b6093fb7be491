"""The parsed spec: :class:`NetworkSpec` and its :class:`LayerSpec` layers, with the
settings the language knows.

Every default is written once, as a dataclass default here; the checker
(:mod:`.checks`) passes only the settings a spec writes, and the formatter
(:mod:`.format`) reads the defaults back with :func:`default`.

Every node keeps where it was written (:class:`Position`, 1-based line and column of
the setting's name): ``NetworkSpec.positions`` for the top-level settings (``"input"``,
``"weights"``, ``"bias"``, ``"M"``, ``"eps"``, ``"P"``, ``"loss"``, ``"training"``,
``"penalty"``, ``"max_weights"``, ``"symmetry"``, ``"scale"``) and ``LayerSpec.positions`` for a layer (``"layer"``: its
``hidden``/``output`` statement; ``"weights"``, ``"bias"``, ``"M"``: its own ``{ }``
settings).  Positions are not part of equality or hashing, and a layer keeps its own
when it is moved into another spec (``dataclasses.replace``), as greedy training does.
A spec built in Python has none.  :meth:`NetworkSpec.position` looks one up.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Mapping

from ...core.activations import HIDDEN
from ...core.losses import LOSS, argument_default
from ...core.penalties import PENALTY
from ...core.scaling import SCALINGS  # noqa: F401 - the values of the spec's "scale"

TOP_SETTINGS = ("input", "hidden", "output", "weights", "bias", "eps", "M", "P",
                "loss", "training", "penalty", "max_weights", "symmetry", "scale")
LAYER_FIELDS = {"weights": "weight_bounds", "bias": "bias_bounds", "M": "big_m"}  # setting: field
GRID_FIELDS = {"weights": "weight_grid", "bias": "bias_grid"}  # 'weights [lo, hi] grid K': field of K
LAYER_SETTINGS = tuple(LAYER_FIELDS)  # what a layer's { } block takes
HIDDEN_ACTIVATIONS = tuple(HIDDEN)  # annc.core.activations; also the keys of annc.formulations.ACTIVATIONS
LOSSES = tuple(LOSS)  # annc.core.losses; also the keys of annc.formulations.LOSSES
# What a spec that names no loss gets (why: docs/decisions.md, "The default recipe"):
# the fewest misclassified training samples plus half an error per non-zero weight (a weight
# is kept only if it earns its place: two weights must save at least one training error),
# with the hidden units' gap ``eps`` chosen on the training data when the spec names none
# (``eps_auto``, resolved in :func:`annc.solve.compiler.build` by :func:`annc.training.warmstart.margin.default_eps`:
# 0.1 where the data admit that margin, else 0.001; 0.001 until then).
# ``penalty l0 auto`` (BeMi's lexicographic weight) is the former default.  A spec that
# names a loss keeps the dataclass defaults below (no penalty unless named, eps 0.01).
RECIPE = {"loss": "errors", "penalty": "l0", "penalty_weight": 0.5, "eps": 0.001, "eps_auto": True}
RECIPE_SETTING = {"penalty_weight": "penalty", "eps_auto": "eps"}  # a field's overriding setting (else its own name)
TRAININGS = ("full", "greedy", "ovo", "batches")  # "batches" takes its number: 'training batches K'
MAX_BATCHES = 1000
MAX_WEIGHT_BUDGET = 2**31 - 1  # 'max_weights': a model row's right-hand side, far above any network's weights
PENALTIES = tuple(PENALTY)  # annc.core.penalties; also the keys of annc.formulations.PENALTIES
SYMMETRIES = ("none", "bias", "count")


@dataclass(frozen=True)
class Position:
    """Where a setting is written: 1-based line and column of its name."""

    line: int
    column: int


def _positions():
    """A ``positions`` field: a mapping from key to :class:`Position`, outside equality."""
    return field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class LayerSpec:
    """One layer: ``units`` outputs, its activation and the boxes of its parameters.

    ``big_m`` is ``None`` for automatic (tightest valid) big-M values, or a number
    the user chose for every big-M row of this layer.  ``weight_grid`` (``bias_grid``)
    is the K of ``weights [lo, hi] grid K`` (``bias ...``): each weight (bias) is then
    one of the K values of :func:`grid_values` (:mod:`annc.formulations.grid`).
    """

    units: int
    activation: str  # "binary" | "relu" | "sign" for hidden layers, "linear" for the output layer
    weight_bounds: tuple[float, float] = (-1.0, 1.0)
    bias_bounds: tuple[float, float] = (-1.0, 1.0)
    big_m: float | None = None
    weight_grid: int | None = None  # K: every weight is one of K grid values (grid_values); None: any in the box
    bias_grid: int | None = None  # the same for the biases ('bias [lo, hi] grid K')
    positions: Mapping[str, Position] = _positions()  # "layer", "weights", "bias", "M"

    @property
    def weight_values(self) -> tuple[float, ...] | None:
        """The weight grid's values (:func:`grid_values`), or None without a grid."""
        return None if self.weight_grid is None else grid_values(self.weight_bounds, self.weight_grid)

    @property
    def bias_values(self) -> tuple[float, ...] | None:
        """The bias grid's values (:func:`grid_values`), or None without a grid."""
        return None if self.bias_grid is None else grid_values(self.bias_bounds, self.bias_grid)


@dataclass(frozen=True)
class NetworkSpec:
    """A network and how to train it: the settings of one ``.ann`` spec."""

    inputs: int | None  # None: 'input auto' (or no 'input'), the data's width: resolve_inputs (annc.io.datacheck)
    hidden: tuple[LayerSpec, ...]
    output: LayerSpec  # units = number of classes, activation "linear"
    eps: float = 0.01
    # the default recipe's eps is the data's to choose (annc.solve.compiler.build resolves it and
    # clears this); not part of equality: the canonical text writes the eps in force
    eps_auto: bool = field(default=False, compare=False)
    partitions: int = 10  # P, McCormick pieces (only used after a ReLU layer)
    loss: str = "nll"  # a name of annc.core.losses.LOSS: "nll" | "errors" | "hinge"
    margin: float = argument_default("margin")  # the argument of the losses that take a margin (hinge): 1.0
    training: str = "full"  # "full" | "greedy" | "ovo" | "batches" (annc.training.decompose.decomposition)
    batches: int = 0  # 'training batches K': K
    penalty: str = "none"  # "none" | "l1" | "l0"
    penalty_weight: float = 0.0
    # 'penalty l0 auto' under 'input auto': the lexicographic weight needs the input count, so it is
    # computed when that is resolved (annc.io.datacheck.resolve_inputs), which clears this
    penalty_auto: bool = field(default=False, compare=False)
    # 'max_weights K': at most K non-zero weights (biases not counted), a row over the l0 penalty's
    # indicators (annc.formulations.l0); cross-validation sets it where the penalty is left open
    max_weights: int | None = None
    symmetry: str = "none"  # "none" | "bias" | "count": order of the units of each hidden layer
    scale: str = "minmax"  # "minmax" | "standard" | "none": input scaling fitted on the training data
    source: str = "<spec>"  # file name the spec came from
    text: str = field(default="", compare=False, repr=False)  # its source text
    positions: Mapping[str, Position] = _positions()  # top-level settings by name

    @property
    def layers(self) -> tuple[LayerSpec, ...]:
        """Hidden layers then the output layer."""
        return self.hidden + (self.output,)

    @property
    def classes(self) -> int:
        return self.output.units

    def position(self, key: str | None, layer: int | None = None) -> Position | None:
        """Where setting ``key`` is written for ``layer`` (an index into :attr:`layers`;
        None: the network): the layer's own ``{ }`` setting, else the top-level one.
        ``key`` None: the layer's own statement.  None when the spec does not say."""
        own = self.layers[layer].positions if layer is not None else {}
        if key is None:
            return own.get("layer")
        return own.get(key) or self.positions.get(key)


def penalty_at(spec: NetworkSpec, weight: float) -> tuple[str, float]:
    """``(penalty, penalty_weight)`` of ``spec`` with its penalty's factor set to ``weight``: the spec's
    own weighted kind (l0 if it has none); at weight 0 no penalty (``"none"``: no indicators to
    build), except under a weight budget (``max_weights``), whose row counts the l0 indicators."""
    kind = spec.penalty if PENALTY[spec.penalty].weighted else "l0"
    return ("none", 0.0) if weight <= 0 and spec.max_weights is None else (kind, max(float(weight), 0.0))


def grid_values(bounds, K: int) -> tuple[float, ...]:
    """The K evenly spaced values ``v_p = lo + (hi - lo)(p - 1)/(K - 1)``, p = 1..K, of the
    box ``bounds = (lo, hi)``: the ends exactly, computed as ``(lo (K - p) + hi (p - 1))/(K - 1)``
    so that a box symmetric about 0 gives a symmetric grid, with 0 itself when K is odd;
    a value within ``1e-12 (hi - lo)`` of 0 is 0."""
    lo, hi = float(bounds[0]), float(bounds[1])
    out = [lo + 0.0]
    for p in range(2, K):
        v = (lo * (K - p) + hi * (p - 1)) / (K - 1)
        out.append(0.0 if abs(v) <= 1e-12 * (hi - lo) else v)
    return tuple(out + [hi + 0.0])


def default(cls, name: str):
    """The default of field ``name`` of dataclass ``cls`` (written once, on the class)."""
    for f in fields(cls):
        if f.name == name and f.default is not MISSING:
            return f.default
    raise KeyError(name)
