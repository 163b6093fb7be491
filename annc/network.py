"""A trained dense network and its forward pass (numpy, standard semantics).

Layer ``l`` maps ``a_{l-1}`` (shape ``N x in``) to ``a_l = act(a_{l-1} W_l + b_l)``:

* ``binary``: ``1 if pre >= 0 else 0``;
* ``relu``:   ``max(0, pre)``;
* ``linear``: ``pre`` (the output layer; the predicted class is ``argmax``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ACTIVATIONS = ("binary", "relu", "linear")


def activate(activation: str, pre: np.ndarray) -> np.ndarray:
    """Apply ``activation`` elementwise to the pre-activations ``pre``."""
    if activation == "binary":
        return (pre >= 0).astype(float)
    if activation == "relu":
        return np.maximum(pre, 0.0)
    if activation == "linear":
        return pre
    raise ValueError(f"unknown activation {activation!r}")


@dataclass
class Layer:
    activation: str
    weight: np.ndarray  # shape (inputs, units)
    bias: np.ndarray  # shape (units,)

    def __post_init__(self):
        self.weight = np.asarray(self.weight, dtype=float)
        self.bias = np.asarray(self.bias, dtype=float)
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {self.activation!r}")
        if self.weight.ndim != 2 or self.bias.shape != (self.weight.shape[1],):
            raise ValueError("weight must be (inputs, units) and bias (units,)")

    @property
    def units(self) -> int:
        return self.weight.shape[1]


@dataclass
class TrainedNetwork:
    """Weights and biases of every layer, in order, plus the class labels."""

    classes: list
    layers: list[Layer]
    meta: dict = field(default_factory=dict)

    def forward(self, X: np.ndarray) -> list[np.ndarray]:
        """Activations of every layer (the last one is the output scores)."""
        a = np.asarray(X, dtype=float)
        outs = []
        for layer in self.layers:
            a = activate(layer.activation, a @ layer.weight + layer.bias)
            outs.append(a)
        return outs

    def scores(self, X: np.ndarray) -> np.ndarray:
        return self.forward(X)[-1]

    def predict_index(self, X: np.ndarray) -> np.ndarray:
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
        return TrainedNetwork(list(self.classes), layers, meta)

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
        }

    @classmethod
    def from_dict(cls, d: dict) -> "TrainedNetwork":
        return cls(
            classes=list(d["classes"]),
            layers=[Layer(L["activation"], np.array(L["weight"], dtype=float).reshape(len(L["weight"]), -1)
                          if len(L["weight"]) else np.zeros((0, len(L["bias"]))), L["bias"])
                    for L in d["layers"]],
            meta=d.get("meta", {}),
        )

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write ``<stem>.weights.json`` and ``<stem>.weights.npz``; return both paths."""
        stem = Path(stem)
        jpath = stem.with_name(stem.name + ".weights.json")
        npath = stem.with_name(stem.name + ".weights.npz")
        jpath.write_text(json.dumps(self.to_dict(), indent=1))
        arrays = {"classes": np.asarray([str(c) for c in self.classes])}
        for i, L in enumerate(self.layers):
            arrays[f"layer{i}_weight"] = L.weight
            arrays[f"layer{i}_bias"] = L.bias
            arrays[f"layer{i}_activation"] = np.asarray(L.activation)
        np.savez(npath, **arrays)
        return jpath, npath

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
        path = Path(path)
        if path.suffix == ".npz":
            z = np.load(path, allow_pickle=False)
            n = sum(1 for k in z.files if k.endswith("_weight"))
            layers = [Layer(str(z[f"layer{i}_activation"]), z[f"layer{i}_weight"], z[f"layer{i}_bias"])
                      for i in range(n)]
            return cls(classes=[str(c) for c in z["classes"]], layers=layers)
        return cls.from_dict(json.loads(path.read_text()))
