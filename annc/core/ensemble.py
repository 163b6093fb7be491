"""A one-vs-one ensemble of binary networks, combined by vote, and one loader for every
weights file.

Member ``k`` of an :class:`Ensemble` is a two-class :class:`~annc.core.network.TrainedNetwork`
that separates class ``i_k`` from class ``j_k`` (``pairs[k] = (i_k, j_k)``, indices into
``classes``, ``i_k < j_k``); its two output scores are those of ``i_k`` and ``j_k``.  The
members share the ensemble's input scaling (``x' = (x - center) / width``, applied once)
and carry none of their own.  For a row ``x``:

* member ``k`` votes for ``i_k`` if ``s_k(x')[0] >= s_k(x')[1]``, else for ``j_k``;
* ``votes_c`` counts the votes for class ``c``; ``margin_c`` sums, over the members that
  involve ``c``, ``c``'s score minus the other class's (positive where ``c`` won);
* ``score_c = votes_c + margin_c / (2 (1 + max_c' |margin_c'|))``: the second term lies in
  ``(-1/2, 1/2)``, so the most votes win and the summed margins break ties;
* the predicted class is the first maximum of ``score``.

The ensemble is saved as one ``.weights.json`` (``"kind": "ovo_ensemble"``, the members'
own JSON inside) and one ``.weights.npz`` (``member{k}_layer{l}_*`` arrays);
:func:`load_model` reads either kind of weights file, so ``annc eval``, ``annc report``,
``annc export`` and the API take an ensemble wherever they take a network.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .columns import Columns, check_columns, json_columns, npz_columns
from .errors import UsageError, WeightsError, weights_field
from .inputs import input_matrix, read_bytes
from .network import Layer, TrainedNetwork, _matrix, _npz_text, layer_arrays, save_weights
from .scaling import Scaling

KIND = "ovo_ensemble"


@dataclass
class Ensemble:
    """One-vs-one ensemble of binary networks, combined by vote (see the module docstring)."""

    classes: list
    members: list[TrainedNetwork]
    pairs: list[tuple[int, int]]
    meta: dict = field(default_factory=dict)
    scaling: Scaling | None = None
    columns: Columns | None = None  # the training columns' names (None: not recorded)

    def __post_init__(self):
        self.pairs = [tuple(int(v) for v in p) for p in self.pairs]
        if len(self.members) != len(self.pairs) or not self.members:
            raise UsageError(f"an ensemble needs one pair of classes per member; got {len(self.members)} "
                             f"member(s) and {len(self.pairs)} pair(s)")
        width = self.members[0].layers[0].weight.shape[0]
        for k, (m, (i, j)) in enumerate(zip(self.members, self.pairs)):
            if not 0 <= i < j < len(self.classes):
                raise UsageError(f"member {k}: pair ({i}, {j}) is not two class indices i < j below "
                                 f"{len(self.classes)}")
            if m.layers[-1].units != 2 or m.layers[0].weight.shape[0] != width or m.scaling is not None:
                raise UsageError(f"member {k} must take {width} inputs, have 2 outputs and no scaling of its own")
        if self.scaling is not None and self.scaling.features != width:
            raise UsageError(f"the scaling has {self.scaling.features} features but the members take {width}")
        check_columns(self.columns, width, UsageError, "the ensemble")

    @property
    def inputs(self) -> int:
        return self.members[0].layers[0].weight.shape[0]

    def votes_and_margins(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(votes, margins)``, each ``N x C``, for the raw features ``X``."""
        a = input_matrix(X, self.inputs, self.columns)
        if self.scaling is not None:
            a = self.scaling.apply(a)
        n, c = a.shape[0], len(self.classes)
        votes, margins = np.zeros((n, c)), np.zeros((n, c))
        for m, (i, j) in zip(self.members, self.pairs):
            s = m.scores(a)
            d = s[:, 0] - s[:, 1]
            first = d >= 0
            votes[:, i] += first
            votes[:, j] += ~first
            margins[:, i] += d
            margins[:, j] -= d
        return votes, margins

    def scores(self, X) -> np.ndarray:
        votes, margins = self.votes_and_margins(X)
        top = np.abs(margins).max(axis=1, keepdims=True)
        return votes + margins / (2.0 * (1.0 + top))

    def predict_index(self, X) -> np.ndarray:
        return np.argmax(self.scores(X), axis=1)

    def predict(self, X) -> np.ndarray:
        return np.asarray(self.classes, dtype=object)[self.predict_index(X)]

    def nonzero_weights(self, tol: float = 1e-9) -> int:
        return int(sum(m.nonzero_weights(tol) for m in self.members))

    # -- files ---------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"kind": KIND, "classes": list(self.classes), "pairs": [list(p) for p in self.pairs],
                "members": [m.to_dict() for m in self.members], "meta": self.meta,
                **({"scaling": self.scaling.to_dict()} if self.scaling is not None else {}),
                **({"columns": self.columns.to_dict()} if self.columns is not None else {})}

    @classmethod
    def from_dict(cls, d: dict, source: str = "weights") -> "Ensemble":
        if not isinstance(d, dict) or d.get("kind") != KIND:
            raise WeightsError(f"{source}: not a one-vs-one ensemble (no \"kind\": \"{KIND}\")")
        for key in ("classes", "pairs", "members"):
            if not isinstance(d.get(key), list):
                raise WeightsError(f"{source}: field {key} must be a list" + (" (it is missing)" if key not in d else ""))
        members = [TrainedNetwork.from_dict(m, f"{source}: members[{k}]") for k, m in enumerate(d["members"])]
        scaling = weights_field(d, "scaling", Scaling.from_dict, source)
        columns = json_columns(d, source)
        try:
            pairs = [tuple(p) for p in d["pairs"]]
            if not all(len(p) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in p) for p in pairs):
                raise UsageError("every pair must be two class indices")
            meta = d.get("meta", {})
            return cls(d["classes"], members, pairs, meta if isinstance(meta, dict) else {}, scaling, columns)
        except UsageError as e:
            raise WeightsError(f"{source}: {e}") from None

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write ``<stem>.weights.json`` and ``<stem>.weights.npz``; return both paths."""
        arrays = {"kind": np.asarray(KIND), "classes": np.asarray([str(c) for c in self.classes]),
                  "pairs": np.asarray(self.pairs, dtype=np.int64)}
        for k, m in enumerate(self.members):
            arrays.update(layer_arrays(m.layers, f"member{k}_"))
        return save_weights(stem, self.to_dict(), arrays, self.scaling, self.columns)

    def export(self, stem: str | Path) -> list[Path]:
        return list(self.save(stem))

    @classmethod
    def load(cls, path: str | Path) -> "Ensemble":
        model = load_model(path)
        if not isinstance(model, Ensemble):
            raise WeightsError(f"{path}: a single network, not a one-vs-one ensemble")
        return model


def model_inputs(model: TrainedNetwork | Ensemble) -> int:
    """The number of input features a network or an ensemble takes."""
    return model.inputs


def load_model(path: str | Path) -> TrainedNetwork | Ensemble:
    """The network or ensemble of a ``.weights.json`` / ``.weights.npz`` file;
    :class:`~annc.core.errors.WeightsError` naming the file and field otherwise."""
    path = Path(path)
    if path.suffix == ".npz":
        arrays = None
        try:
            with np.load(path, allow_pickle=False) as z:
                if "kind" in z.files and _npz_text(z["kind"]) == KIND:
                    arrays = {k: z[k] for k in z.files}
        except Exception:  # noqa: BLE001 - not an ensemble archive: the network reader says what is wrong
            arrays = None
        return _ensemble_from_npz(arrays, str(path)) if arrays is not None else TrainedNetwork.load(path)
    raw = read_bytes(path, "weights file", WeightsError)
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise WeightsError(f"{path}: not a readable weights file ({e})") from None
    if isinstance(d, dict) and d.get("kind") == KIND:
        return Ensemble.from_dict(d, str(path))
    return TrainedNetwork.from_dict(d, str(path))


def _ensemble_from_npz(z: dict, source: str) -> Ensemble:
    try:
        classes = [str(c) for c in z["classes"]]  # as TrainedNetwork's .npz: labels as text
        pairs = [tuple(int(v) for v in p) for p in np.asarray(z["pairs"]).reshape(-1, 2)]
        members = []
        for k in range(len(pairs)):
            layers, i = [], 0
            while f"member{k}_layer{i}_weight" in z:
                name = f"member{k}_layer{i}"
                layers.append(Layer(_npz_text(z[f"{name}_activation"]),
                                    _matrix(z[f"{name}_weight"], f"{source}: field {name}_weight", 2),
                                    _matrix(z[f"{name}_bias"], f"{source}: field {name}_bias", 1)))
                i += 1
            members.append(TrainedNetwork([classes[pairs[k][0]], classes[pairs[k][1]]], layers))
        scaling = None
        if "scaling_kind" in z:
            scaling = Scaling(_npz_text(z["scaling_kind"]), _matrix(z["scaling_center"], f"{source}: field "
                              "scaling_center", 1), _matrix(z["scaling_width"], f"{source}: field scaling_width", 1))
        return Ensemble(classes, members, pairs, {}, scaling, npz_columns(z, source))
    except (KeyError, IndexError, ValueError, TypeError, UsageError) as e:
        raise WeightsError(f"{source}: not a valid ensemble weights file ({type(e).__name__}: {e})") from None
