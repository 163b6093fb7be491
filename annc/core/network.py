"""A trained dense network and its forward pass (numpy, standard semantics).

Layer ``l`` maps ``a_{l-1}`` (shape ``N x in``) to ``a_l = act(a_{l-1} W_l + b_l)``:
a hidden layer's ``act`` is the ``forward`` of its activation in :data:`annc.core.activations.HIDDEN`
(``binary``: ``1[pre >= 0]``; ``relu``: ``max(pre, 0)``; ``sign``: ``2 1[pre >= 0] - 1``),
the output layer's is ``linear``: ``pre`` (the predicted class is ``argmax``).

A network may carry an input :class:`~annc.core.scaling.Scaling` (``x' = (x - center) / width``,
fitted on its training data: :mod:`annc.core.scaling`): :meth:`TrainedNetwork.forward` applies it
to the raw features before layer 0, and every file the network is saved to records it.
:meth:`TrainedNetwork.core` is the same network without it (the one the MIP's variables
describe, on scaled inputs).

A network may record the names of its training columns (:class:`~annc.core.columns.Columns`:
its features, in the order layer 0 reads them, and the label), and every weights file
records them (``.json``: ``"columns": {"features": [...], "label": ...}``; ``.npz``:
``columns_features``, ``columns_label``).  Given a data frame, :meth:`TrainedNetwork.forward`
(so ``predict``) finds the features by name (:func:`annc.core.inputs.input_matrix`); an array is read by
position.  Files of an older annc, without names, load as before: a named table is then
read by position, with a warning (:func:`annc.core.columns.match_columns`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .activations import HIDDEN
from .columns import Columns, check_columns, json_columns, npz_columns
from .errors import UsageError, WeightsError, weights_field
from .inputs import input_matrix, read_bytes
from .scaling import Scaling

ACTIVATIONS = (*HIDDEN, "linear")  # as imported; activation_names() reads the table as it is now


def activation_names() -> tuple:
    """The activations a layer may have: those of :data:`annc.core.activations.HIDDEN`, and ``linear``."""
    return (*HIDDEN, "linear")


def activate(activation: str, pre: np.ndarray) -> np.ndarray:
    """Apply ``activation`` elementwise to the pre-activations ``pre``."""
    if isinstance(activation, str) and activation in HIDDEN:
        return HIDDEN[activation].forward(pre)
    if activation == "linear":
        return pre
    raise UsageError(f"unknown activation {activation!r}; expected one of {', '.join(activation_names())}")


@dataclass
class Layer:
    activation: str
    weight: np.ndarray  # shape (inputs, units)
    bias: np.ndarray  # shape (units,)

    def __post_init__(self):
        try:
            self.weight = np.asarray(self.weight, dtype=float)
            self.bias = np.asarray(self.bias, dtype=float)
        except (TypeError, ValueError) as e:
            raise UsageError(f"a layer's weight and bias must be arrays of numbers: {e}") from None
        if self.activation not in activation_names():
            raise UsageError(f"unknown activation {self.activation!r}; expected one of "
                             f"{', '.join(activation_names())}")
        if self.weight.ndim != 2 or self.bias.shape != (self.weight.shape[1],):
            raise UsageError(f"a layer's weight must have shape (inputs, units) and its bias (units,); got "
                             f"{self.weight.shape} and {self.bias.shape}")

    @property
    def units(self) -> int:
        return self.weight.shape[1]


@dataclass
class TrainedNetwork:
    """Weights and biases of every layer, in order, plus the class labels (and, if known,
    the names of the training columns: see the module docstring)."""

    classes: list
    layers: list[Layer]
    meta: dict = field(default_factory=dict)
    scaling: Scaling | None = None  # applied to the raw features before layer 0
    columns: Columns | None = None  # the training columns' names (None: not recorded)

    def __post_init__(self):
        if self.scaling is not None and self.layers and self.scaling.features != self.layers[0].weight.shape[0]:
            raise UsageError(f"the scaling has {self.scaling.features} features but the first layer takes "
                             f"{self.layers[0].weight.shape[0]} inputs")
        check_columns(self.columns, self.inputs if self.layers else None, UsageError, "the network")

    @property
    def inputs(self) -> int:
        """The number of input features."""
        return self.layers[0].weight.shape[0]

    def core(self) -> "TrainedNetwork":
        """The network without its input scaling (on already scaled features)."""
        return replace(self, scaling=None)

    def with_scaling(self, scaling: Scaling | None) -> "TrainedNetwork":
        """The same layers behind ``scaling`` (None, or an identity scaling: none)."""
        keep = scaling if scaling is not None and not scaling.identity else None
        return replace(self, scaling=keep)

    def forward(self, X: np.ndarray) -> list[np.ndarray]:
        """Activations of every layer (the last one is the output scores) for raw features ``X``."""
        a = self._rows(X)
        if self.scaling is not None:
            a = self.scaling.apply(a)
        outs = []
        for layer in self.layers:
            a = activate(layer.activation, a @ layer.weight + layer.bias)
            outs.append(a)
        return outs

    def _rows(self, X) -> np.ndarray:
        if not self.layers:
            raise UsageError("the network has no layers")
        return input_matrix(X, self.inputs, self.columns)

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The output layer's scores for the rows of ``X`` (one column per class)."""
        return self.forward(X)[-1]

    def predict_index(self, X: np.ndarray) -> np.ndarray:
        """The index in :attr:`classes` of the predicted class of each row of ``X``."""
        return np.argmax(self.scores(X), axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class labels for the rows of ``X``."""
        return np.asarray(self.classes, dtype=object)[self.predict_index(X)]

    def pruned(self, tol: float = 1e-9) -> "TrainedNetwork":
        """The same function without hidden units whose outgoing weights are all zero.

        Such a unit never reaches the output, so removing it (its column in ``W_l`` and
        ``b_l``, its row in ``W_{l+1}``) is exact; removal runs from the last hidden
        layer back, since it can leave units before it without outgoing weights.
        """
        layers = [Layer(L.activation, L.weight.copy(), L.bias.copy()) for L in self.layers]
        removed = [0] * len(layers)
        for i in range(len(layers) - 2, -1, -1):
            keep = np.abs(layers[i + 1].weight).max(axis=1, initial=0.0) > tol
            removed[i] = int(np.sum(~keep))
            layers[i] = Layer(layers[i].activation, layers[i].weight[:, keep], layers[i].bias[keep])
            layers[i + 1] = Layer(layers[i + 1].activation, layers[i + 1].weight[keep], layers[i + 1].bias)
        meta = {**self.meta, "pruned_units": removed[:-1]}
        return TrainedNetwork(list(self.classes), layers, meta, self.scaling, self.columns)

    def nonzero_weights(self, tol: float = 1e-9) -> int:
        return int(sum(np.count_nonzero(np.abs(layer.weight) > tol) for layer in self.layers))

    # -- files ---------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "classes": list(self.classes),
            "layers": [
                {"activation": L.activation, "weight": L.weight.tolist(), "bias": L.bias.tolist()}
                for L in self.layers
            ],
            "meta": self.meta,
            **({"scaling": self.scaling.to_dict()} if self.scaling is not None else {}),
            **({"columns": self.columns.to_dict()} if self.columns is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict, source: str = "weights") -> "TrainedNetwork":
        """The network of a parsed ``.weights.json``; :class:`~annc.core.errors.WeightsError`
        naming ``source`` and the field when it is not a usable network."""
        if not isinstance(d, dict):
            raise WeightsError(f"{source}: expected a JSON object with \"classes\" and \"layers\", "
                               f"found {type(d).__name__}")
        for key in ("classes", "layers"):
            if not isinstance(d.get(key), list):
                raise WeightsError(f"{source}: field {key} must be a list"
                                   + (" (it is missing)" if key not in d else ""))
        layers = []
        for i, L in enumerate(d["layers"]):
            if not isinstance(L, dict):
                raise WeightsError(f"{source}: field layers[{i}] must be an object with activation, "
                                   "weight and bias")
            for key in ("activation", "weight", "bias"):
                if key not in L:
                    raise WeightsError(f"{source}: field layers[{i}].{key} is missing")
            bias = _matrix(L["bias"], f"{source}: field layers[{i}].bias", 1)
            weight = (np.zeros((0, bias.size)) if L["weight"] == []  # no inputs: a pruned layer's successor
                      else _matrix(L["weight"], f"{source}: field layers[{i}].weight", 2))
            layers.append((L["activation"], weight, bias))
        meta = d.get("meta", {})
        scaling = weights_field(d, "scaling", Scaling.from_dict, source)
        return _network(d["classes"], layers, meta if isinstance(meta, dict) else {}, source,
                        lambda i, key: f"layers[{i}].{key}", scaling, json_columns(d, source))

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write ``<stem>.weights.json`` and ``<stem>.weights.npz``; return both paths."""
        return save_weights(stem, self.to_dict(), {"classes": np.asarray([str(c) for c in self.classes]),
                                                   **layer_arrays(self.layers)}, self.scaling, self.columns)

    def export(self, stem: str | Path) -> list[Path]:
        """Save the network as :meth:`save`, plus ``<stem>.pruned.weights.*`` when
        :meth:`pruned` removes any unit (the same function with fewer units)."""
        paths = list(self.save(stem))
        pruned = self.pruned()
        if sum(pruned.meta["pruned_units"]):
            stem = Path(stem)
            paths += pruned.save(stem.with_name(stem.name + ".pruned"))
        return paths

    @classmethod
    def load(cls, path: str | Path) -> "TrainedNetwork":
        """Read a ``.weights.json`` or ``.weights.npz`` file (as :meth:`save` writes
        them); :class:`~annc.core.errors.WeightsError` naming the file and field otherwise."""
        path = Path(path)
        if path.suffix == ".npz":
            return _load_npz(path)
        raw = read_bytes(path, "weights file", WeightsError)
        try:
            d = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:  # bad JSON, 4,300+ digits
            raise WeightsError(f"{path}: not a readable weights file ({e})") from None
        return cls.from_dict(d, str(path))


def unit_relative(W: np.ndarray) -> np.ndarray:
    """``|W|`` with each unit's column divided by its largest entry (0 for an all-zero
    column): a step unit's weights scale freely, so only these ratios say which is small."""
    A = np.abs(np.asarray(W, float))
    top = A.max(axis=0, keepdims=True)
    return np.divide(A, top, out=np.zeros_like(A), where=top > 0)


def keep_mask(net: "TrainedNetwork", keep: float) -> list[np.ndarray]:
    """The mask (one boolean array per weight matrix) that keeps the largest ``keep`` share of
    each hidden layer's non-zero weights, compared by :func:`unit_relative` (ties: the first in
    row-major order), and the whole output layer: magnitude pruning of a step network."""
    mask = []
    for L in net.layers[:-1]:
        W, score = np.abs(L.weight), unit_relative(L.weight)
        kept = np.zeros(W.size, dtype=bool)
        kept[np.argsort(-score.ravel(), kind="stable")[:int(np.ceil(keep * np.count_nonzero(W)))]] = True
        mask.append(kept.reshape(W.shape) & (W > 0))
    return mask + [np.ones_like(net.layers[-1].weight, dtype=bool)]


def layer_arrays(layers: list[Layer], prefix: str = "") -> dict:
    """The ``.npz`` arrays of ``layers``: ``<prefix>layer<i>_weight|_bias|_activation``."""
    arrays = {}
    for i, L in enumerate(layers):
        arrays[f"{prefix}layer{i}_weight"] = L.weight
        arrays[f"{prefix}layer{i}_bias"] = L.bias
        arrays[f"{prefix}layer{i}_activation"] = np.asarray(L.activation)
    return arrays


def save_weights(stem: str | Path, record: dict, arrays: dict, scaling: Scaling | None,
                 columns: Columns | None = None) -> tuple[Path, Path]:
    """Write ``<stem>.weights.json`` (``record``) and ``<stem>.weights.npz`` (``arrays`` plus
    the scaling's ``scaling_kind|_center|_width`` and the column names'
    ``columns_features|_label``); return both paths.  The one writer of weights files, for
    networks and ensembles."""
    stem = Path(stem)
    jpath = stem.with_name(stem.name + ".weights.json")
    npath = stem.with_name(stem.name + ".weights.npz")
    jpath.write_text(json.dumps(record, indent=1))
    if scaling is not None:
        arrays = {**arrays, "scaling_kind": np.asarray(scaling.kind), "scaling_center": scaling.center,
                  "scaling_width": scaling.width}
    if columns is not None:
        arrays = {**arrays, **columns.arrays()}
    np.savez(npath, **arrays)
    return jpath, npath


def _matrix(value, where: str, ndim: int) -> np.ndarray:
    """``value`` as a float array of ``ndim`` dimensions (a weight matrix: rows of equal
    length; a bias: a list of numbers); :class:`WeightsError` at ``where`` otherwise."""
    what = "a list of rows of numbers, all of the same length" if ndim == 2 else "a list of numbers"
    if isinstance(value, np.ndarray):
        ok = value.dtype.kind in "iuf" and value.ndim == ndim
        a = value.astype(float) if ok else None
    else:
        ok = isinstance(value, list) and (ndim == 1 or all(isinstance(r, list) for r in value))
        flat = [v for r in value for v in r] if ok and ndim == 2 else (value if ok else [])
        ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in flat)
        if ok and ndim == 2:
            ok = len({len(r) for r in value}) <= 1
        try:
            a = np.array(value, dtype=float) if ok else None
        except OverflowError:  # an integer beyond a float
            a = np.array([np.inf])
    if not ok:
        raise WeightsError(f"{where} must be {what}")
    if not np.all(np.isfinite(a)):
        raise WeightsError(f"{where} has a value that is not a finite number")
    return a


def _network(classes, layers: list[tuple], meta: dict, source: str, field,
             scaling: Scaling | None = None, columns: Columns | None = None) -> TrainedNetwork:
    """Check the parts ``(activation, weight, bias)`` of a network read from ``source``
    fit together, and build it; ``field(i, key)`` names a layer's field in messages."""
    if not layers:
        raise WeightsError(f"{source}: field layers is empty: a network needs at least the output layer")
    if not all(isinstance(c, str) or (isinstance(c, int) and not isinstance(c, bool)) for c in classes):
        raise WeightsError(f"{source}: field classes must be a list of class labels (strings or integers)")
    if len(classes) < 2 or len({str(c).strip() for c in classes}) != len(classes):
        raise WeightsError(f"{source}: field classes must list at least 2 distinct classes, found "
                           f"{', '.join(map(str, classes)) or 'none'}")
    built, inputs = [], None
    for i, (act, w, b) in enumerate(layers):
        if act not in activation_names():
            raise WeightsError(f"{source}: field {field(i, 'activation')} must be one of "
                               f"{', '.join(activation_names())} (found {str(act)[:40]!r})")
        if inputs is not None and w.shape[0] != inputs:
            raise WeightsError(f"{source}: field {field(i, 'weight')} has {w.shape[0]} rows but layer "
                               f"{i - 1} has {inputs} units")
        if b.shape != (w.shape[1],):
            raise WeightsError(f"{source}: field {field(i, 'bias')} has {b.size} values but the weight "
                               f"has {w.shape[1]} columns")
        built.append(Layer(act, w, b))
        inputs = w.shape[1]
    if inputs != len(classes):
        raise WeightsError(f"{source}: the output layer has {inputs} units but field classes lists "
                           f"{len(classes)} classes")
    if scaling is not None and scaling.features != built[0].weight.shape[0]:
        raise WeightsError(f"{source}: field scaling has {scaling.features} features but the first layer "
                           f"takes {built[0].weight.shape[0]} inputs")
    check_columns(columns, built[0].weight.shape[0], WeightsError, source)
    return TrainedNetwork(list(classes), built, meta, scaling, columns)


def _npz_text(a: np.ndarray) -> str:
    """A text field of a ``.npz`` (a 0-d string array); anything else as (at most 40
    characters of) its repr, which the caller's check then names in its message."""
    return str(a) if a.ndim == 0 and a.dtype.kind == "U" else repr(a.tolist())[:40]


def _load_npz(path: Path) -> TrainedNetwork:
    """Read a ``.weights.npz`` (``classes``, ``layer<i>_weight|_bias|_activation``)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, KeyError) as e:
        if isinstance(e, FileNotFoundError):
            raise WeightsError(f"{path}: weights file not found") from None
        if isinstance(e, IsADirectoryError):
            raise WeightsError(f"{path}: is a folder, not a weights file") from None
        raise WeightsError(f"{path}: not a readable .npz weights file ({e})") from None
    except Exception as e:  # noqa: BLE001 - zipfile and numpy raise many kinds on a corrupt archive
        raise WeightsError(f"{path}: not a readable .npz weights file ({type(e).__name__}: {e})") from None
    if "classes" not in arrays:
        raise WeightsError(f"{path}: field classes is missing")
    classes = arrays["classes"]
    if classes.ndim != 1 or classes.dtype.kind not in "U":
        raise WeightsError(f"{path}: field classes must be a list of class labels")
    layers, i = [], 0
    while f"layer{i}_weight" in arrays:
        for key in ("activation", "weight", "bias"):
            if f"layer{i}_{key}" not in arrays:
                raise WeightsError(f"{path}: field layer{i}_{key} is missing")
        parts = (_npz_text(arrays[f"layer{i}_activation"]), _matrix(arrays[f"layer{i}_weight"], f"{path}: field layer{i}_weight", 2),
                 _matrix(arrays[f"layer{i}_bias"], f"{path}: field layer{i}_bias", 1))
        layers.append(parts)
        i += 1
    scaling = None
    if "scaling_kind" in arrays:
        try:
            scaling = Scaling(_npz_text(arrays["scaling_kind"]),
                              _matrix(arrays.get("scaling_center"), f"{path}: field scaling_center", 1),
                              _matrix(arrays.get("scaling_width"), f"{path}: field scaling_width", 1))
        except UsageError as e:
            raise WeightsError(f"{path}: field scaling: {e}") from None
    return _network([str(c) for c in classes], layers, {}, str(path), lambda i, key: f"layer{i}_{key}",
                    scaling, npz_columns(arrays, str(path)))
