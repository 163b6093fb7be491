"""A trained network as an ONNX graph, for ONNX runtimes, PyTorch and friends.

The graph is annc's forward pass (:meth:`annc.core.network.TrainedNetwork.forward`), op by op,
in double precision so that a runtime computes the same numbers:

* input ``X``: ``N x d`` doubles, the raw features, by position (below);
* the network's input scaling, if it records one: ``x' = (X - center) / width``
  (``Sub``, ``Div``);
* every layer ``pre = a W + b`` (``MatMul``, ``Add``), then its activation: the ops of
  its ``onnx`` hook in :data:`annc.core.activations.HIDDEN` (``binary`` ``1[pre >= 0]``:
  ``GreaterOrEqual`` against 0, ``Cast`` to double; ``sign`` ``2 1[pre >= 0] - 1``;
  ``relu``: ``Relu``), or nothing for ``linear``;
* a one-vs-one :class:`~annc.core.ensemble.Ensemble`: every member's layers, then the vote
  of :mod:`annc.core.ensemble` (votes plus tie-breaking margins), summed member by member
  in annc's order, so the floats are the same;
* outputs ``scores`` (``N x C`` doubles, the output layer), ``label`` (``N`` int64, the
  index of the predicted class: ``ArgMax`` with the first maximum, as ``numpy.argmax``)
  and ``class`` (``N``, the predicted class label itself: ``Gather`` from the list of
  classes, as int64 when every class is an integer, as strings otherwise).

Every operation is the one numpy performs, in the same order, on the same doubles; only a
matrix product may sum its terms in another order, which moves a score by rounding (about
1e-16 relative) and can change a step unit or the argmax only where two values agree to
that rounding.  Sums of small integers are exact in any order, so a pre-activation that
is exactly 0 (where a step unit switches on) is 0 in both.

**Text columns** (:mod:`annc.core.categories`): a network that one-hot encodes text columns
takes ``X`` as its numeric columns only (``N x d_numeric`` doubles, in the network's order
of them) and one string input per text column, named after the column (``N`` strings: the
categories, stripped of blanks as annc reads them); an ``OneHotEncoder`` node of the
``ai.onnx.ml`` domain encodes each, and ``Concat`` then ``Gather`` put the inputs in the
network's order.  A category not seen in training follows the rule ``unknown`` given to
the export (:data:`annc.core.categories.UNKNOWN_RULES`): ``ignore`` (the default) gives it
all zeros (``zeros=1``), as annc reads it (a runtime has no warning to give: annc's
``UnknownCategoryWarning`` is not in the graph); ``error`` makes it an error of the runtime
(``zeros=0``), as ``--unknown error`` makes it annc's.  The metadata's ``categories``
(JSON) records each text column's categories, and ``unknown`` the rule.

**Missing cells** (:mod:`annc.core.missing`): a network trained with ``--missing impute``
records each column's fill, and the graph applies it: a NaN of ``X`` becomes its column's
median (``IsNaN``, ``Where``), and an empty, ``NA``, ``N/A``, ``NaN`` or ``nan`` string of a
text column its most frequent category (``LabelEncoder`` of ``ai.onnx.ml``, before
``OneHotEncoder``; any other string not among the categories is an unseen one).  The
metadata's ``imputed`` (JSON) records the fills.  Without recorded fills a NaN goes through
the arithmetic as NaN (a runtime has no error of annc's to raise; a step unit reads it as
off), and a missing cell of a text column makes its row's scores NaN (``LabelEncoder`` to
NaN, added to the scores), not the zeros of an unseen category (under ``unknown="error"`` it
is refused by ``OneHotEncoder`` as an unseen category).

The input is positional: column ``j`` of ``X`` is the network's feature ``j``; unlike
annc's own readers (:func:`annc.core.columns.match_columns`), an ONNX runtime does not match
names.  When the network records its training columns' names they are in the input's
doc string and in the model's metadata (``features``, a JSON list, in the order ``X``
takes them), so a caller can order its columns by them.  The class labels and annc's
version are in the metadata too (``classes`` as JSON).
Weights, biases and the scaling must be finite, and a network's output layer must have one
unit per class (:class:`~annc.core.errors.UsageError` otherwise).

Why ONNX via the ``onnx`` package: it is the exchange format every deployment runtime
reads (onnxruntime, TensorRT, OpenVINO, ``onnx2torch``), and ``onnx.helper`` builds and
``onnx.checker`` validates the graph, so annc writes no protobuf by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .. import __version__
from ..core.activations import HIDDEN
from ..core.categories import check_unknown
from ..core.errors import UsageError
from ..core.missing import MARKERS
from ..core.network import TrainedNetwork
from ..io.outputs import atomic_write, check_out_file

OPSET = 17
ML_DOMAIN, ML_OPSET = "ai.onnx.ml", 3  # OneHotEncoder (and LabelEncoder, for fills), for text columns
UNSEEN = "<a category not seen in training>"  # what an unseen category becomes before OneHotEncoder reads it


class _Graph:
    """Nodes and constants of the graph being built, with fresh names."""

    def __init__(self):
        from onnx import TensorProto, helper, numpy_helper
        self.helper, self.numpy_helper = helper, numpy_helper
        self.DOUBLE = TensorProto.DOUBLE  # for the activations' hooks (annc.core.activations)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, stem: str) -> str:
        self.n += 1
        return f"{stem}_{self.n}"

    def const(self, stem: str, value) -> str:
        name = self.name(stem)
        self.inits.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind: str, inputs: list[str], out: str | None = None, **attrs) -> str:
        out = out or self.name(kind.lower())
        self.nodes.append(self.helper.make_node(kind, inputs, [out], **attrs))
        return out


def _scaling(g: _Graph, x: str, scaling) -> str:
    if scaling is None:
        return x
    shifted = g.op("Sub", [x, g.const("scale_center", scaling.center.astype(np.float64))])
    return g.op("Div", [shifted, g.const("scale_width", scaling.width.astype(np.float64))], "X_scaled")


def _layers(g: _Graph, x: str, net: TrainedNetwork, out: str | None = None) -> str:
    """The layers of ``net`` (no scaling) on input ``x``; the name of the output scores."""
    if not net.layers:
        raise UsageError("the network has no layers")
    for i, layer in enumerate(net.layers):
        last = i == len(net.layers) - 1
        pre = g.op("Add", [g.op("MatMul", [x, g.const("W", layer.weight.astype(np.float64))]),
                           g.const("b", layer.bias.astype(np.float64))], out if last else None)
        act = layer.activation
        if last:
            if act != "linear":
                raise UsageError(f"the output layer must be linear, not {act}")
            return pre
        if act == "linear":
            x = pre
        elif isinstance(act, str) and act in HIDDEN:
            x = HIDDEN[act].onnx(g, pre)
        else:
            raise UsageError(f"no ONNX export for hidden activation {act!r}")
    raise AssertionError("unreachable")  # pragma: no cover


def _vote(g: _Graph, x: str, ens, out: str = "scores") -> str:
    """The ensemble's scores: votes plus tie-breaking margins, summed member by member in
    the order :meth:`annc.core.ensemble.Ensemble.votes_and_margins` sums them (so the floats
    are the same)."""
    C = len(ens.classes)
    votes = margins = None
    for m, (i, j) in zip(ens.members, ens.pairs):
        s = _layers(g, x, m)
        first_col = g.op("Slice", [s, g.const("c0", np.array([0])), g.const("c1", np.array([1])),
                                   g.const("ax", np.array([1]))])
        second_col = g.op("Slice", [s, g.const("c1", np.array([1])), g.const("c2", np.array([2])),
                                    g.const("ax", np.array([1]))])
        d = g.op("Sub", [first_col, second_col])  # N x 1
        first = g.op("Cast", [g.op("GreaterOrEqual", [d, g.const("zero", np.float64(0.0))])], to=11)  # double
        e_i, e_j = np.zeros((1, C)), np.zeros((1, C))
        e_i[0, i], e_j[0, j] = 1.0, 1.0
        second = g.op("Sub", [g.const("one", np.float64(1.0)), first])
        v = g.op("Add", [g.op("Mul", [first, g.const("e_i", e_i)]), g.op("Mul", [second, g.const("e_j", e_j)])])
        mg = g.op("Mul", [d, g.const("e_ij", e_i - e_j)])
        votes = v if votes is None else g.op("Add", [votes, v])
        margins = mg if margins is None else g.op("Add", [margins, mg])
    top = g.op("ReduceMax", [g.op("Abs", [margins])], keepdims=1, axes=[1])
    scale = g.op("Mul", [g.const("two", np.float64(2.0)), g.op("Add", [g.const("one", np.float64(1.0)), top])])
    return g.op("Add", [votes, g.op("Div", [margins, scale])], out)


def to_onnx(net, unknown: str | None = None):
    """The ONNX model (``onnx.ModelProto``) of a ``TrainedNetwork`` or a one-vs-one
    ``Ensemble``; checked by ``onnx.checker``.  ``unknown``: the rule for a category not seen
    in training (``"ignore"``, None: all zeros; ``"error"``: refused by the runtime)."""
    import onnx
    from onnx import TensorProto, helper

    from ..core.ensemble import Ensemble
    if not isinstance(net, (TrainedNetwork, Ensemble)):
        raise UsageError(f"ONNX export takes a TrainedNetwork or an Ensemble, not {type(net).__name__}")
    unknown = check_unknown(unknown)
    _check(net)
    g = _Graph()
    inputs, x, flags = _inputs(g, net, helper, TensorProto, unknown)
    x = _scaling(g, x, net.scaling)
    out = "scores" if not flags else "scores_read"
    if isinstance(net, Ensemble):
        scores = _vote(g, x, net, out)
    else:
        scores = _layers(g, x, net, out)
    for k, flag in enumerate(flags):  # NaN scores for a row with a missing text cell and no fill
        scores = g.op("Add", [scores, flag], "scores" if k == len(flags) - 1 else None)
    kept = g.op("ArgMax", [scores], axis=1, keepdims=1, select_last_index=0)
    g.op("Squeeze", [kept, g.const("axis1", np.asarray([1], dtype=np.int64))], "label")
    classes = list(net.classes)
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in classes):
        table, class_type = np.asarray(classes, dtype=np.int64), TensorProto.INT64
    else:
        table, class_type = np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING
    g.op("Gather", [g.const("classes", table), "label"], "class", axis=0)
    c = len(classes)
    graph = helper.make_graph(
        g.nodes, "annc_ensemble" if isinstance(net, Ensemble) else "annc_network",
        inputs,
        [helper.make_tensor_value_info("scores", TensorProto.DOUBLE, ["N", c]),
         helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("class", class_type, ["N"])],
        g.inits)
    model = helper.make_model(graph, producer_name="annc", producer_version=__version__,
                              opset_imports=[helper.make_opsetid("", OPSET)]
                              + ([helper.make_opsetid(ML_DOMAIN, ML_OPSET)] if _categories(net) else []))
    model.ir_version = min(model.ir_version, 8)  # readable by onnxruntime releases of the last years
    props = {"classes": json.dumps([_plain(c) for c in classes]), "annc_version": __version__}
    if net.columns is not None:
        props["features"] = json.dumps(list(net.columns.features))
    if net.columns is not None and net.columns.imputed:
        props["imputed"] = json.dumps(net.columns.to_dict()["imputed"])
    if _categories(net):
        props["categories"] = json.dumps(net.columns.to_dict()["categories"])
        props["unknown"] = unknown
        _check_names(graph, [i.name for i in inputs[1 if inputs[0].name == "X" else 0:]])
    helper.set_model_props(model, props)
    onnx.checker.check_model(model, full_check=True)
    return model


def _categories(net) -> bool:
    return net.columns is not None and bool(net.columns.categories)


def _inputs(g: _Graph, net, helper, TensorProto, unknown: str = "ignore") -> tuple[list, str, list]:
    """The graph's inputs, the name of the network's input matrix and the row flags to add
    to the scores.  Without text columns, ``X`` itself and no flag; with them, ``X`` holds the
    numeric columns and each text column is a string input of its own, encoded by
    ``OneHotEncoder`` (ai.onnx.ml; an unseen category all zeros or refused, as ``unknown``
    says) and put back in the network's order (``Concat``, ``Gather``); under ``ignore``, a
    text column without a fill flags its missing cells' rows (``N x 1``: NaN there, else 0)."""
    d = net.inputs
    fills = dict(net.columns.imputed) if net.columns is not None else {}
    if not _categories(net):
        numeric = list(net.columns.features) if net.columns is not None else []
        return ([helper.make_tensor_value_info("X", TensorProto.DOUBLE, ["N", d], _input_doc(net))],
                _imputed(g, "X", numeric, fills), [])
    sources = net.columns.sources
    numeric = [name for name, cats in sources if cats is None]
    infos, parts, flags = [], [], []
    if numeric:
        infos.append(helper.make_tensor_value_info("X", TensorProto.DOUBLE, ["N", len(numeric)],
                                                   "numeric columns, by position: " + ", ".join(numeric)))
        parts.append(_imputed(g, "X", numeric, fills))
    at, where = len(numeric), {}
    for name, cats in sources:
        if cats is None:
            continue
        infos.append(helper.make_tensor_value_info(name, TensorProto.STRING, ["N"], "categories of the text column "
                                                   f"{name} (one per row; unseen ones are "
                                                   + ("all zeros): " if unknown == "ignore" else "an error): ")
                                                   + ", ".join(cats)))
        text, markers = name, sorted(MARKERS - set(cats))
        if name in fills:  # a missing cell ("", NA, NaN, ...) is the recorded category; the others are themselves
            text = g.op("LabelEncoder", [name], domain=ML_DOMAIN, keys_strings=list(cats) + markers,
                        values_strings=list(cats) + [fills[name]] * len(markers), default_string=UNSEEN)
        onehot = g.op("OneHotEncoder", [text], domain=ML_DOMAIN, cats_strings=list(cats),
                      zeros=1 if unknown == "ignore" else 0)
        parts.append(g.op("Cast", [onehot], to=TensorProto.DOUBLE))
        if name not in fills and unknown == "ignore":  # a missing cell: NaN scores, not an unseen category's zeros
            nan = g.op("LabelEncoder", [name], domain=ML_DOMAIN, keys_strings=markers,
                       values_floats=[float("nan")] * len(markers), default_float=0.0)
            nan = g.op("Unsqueeze", [nan, g.const("axis1", np.asarray([1], dtype=np.int64))])
            flags.append(g.op("Cast", [nan], to=TensorProto.DOUBLE))
        where[name], at = at, at + len(cats)
    order, n = [], 0
    for name, cats in sources:  # the position in the Concat of every input of the network, in its order
        if cats is None:
            order.append(n)
            n += 1
        else:
            order += range(where[name], where[name] + len(cats))
    concat = g.op("Concat", parts, axis=1)
    return (infos, g.op("Gather", [concat, g.const("inputs", np.asarray(order, dtype=np.int64))], "X_encoded", axis=1),
            flags)


def _imputed(g: _Graph, x: str, names: list[str], fills: dict) -> str:
    """The doubles ``x`` (columns ``names``) with their NaN replaced by the recorded fills
    (``Where(IsNaN(x), fill, x)``; a column without a fill keeps its NaN); ``x`` itself when
    the network records none (:mod:`annc.core.missing`)."""
    if not any(name in fills for name in names):
        return x
    fill = np.array([[fills.get(name, np.nan) for name in names]], dtype=np.float64)
    return g.op("Where", [g.op("IsNaN", [x]), g.const("fill", fill), x], "X_imputed")


def _check_names(graph, names: list[str]) -> None:
    """A :class:`UsageError` when a text column's input name is also a name in the graph."""
    taken = {o for node in graph.node for o in node.output} | {i.name for i in graph.initializer} | {"X"}
    clash = [n for n in names if n in taken]
    if clash:
        raise UsageError(f"ONNX export: the text column {clash[0]!r} is also a name in the graph "
                         "(its input is named after the column): rename the column")


def _input_doc(net) -> str:
    """The doc string of input ``X``: its columns, by position."""
    if net.columns is None:
        return "raw features, by position (the weights file records no names)"
    return "raw features, by position: " + ", ".join(net.columns.features)


def _check(net) -> None:
    """Every number that goes into the graph is finite, and the output layer has one unit
    per class (a :class:`UsageError` otherwise: a runtime would not say so)."""
    from ..core.ensemble import Ensemble
    nets = net.members if isinstance(net, Ensemble) else [net]
    arrays = [("scaling center", net.scaling.center), ("scaling width", net.scaling.width)] if net.scaling else []
    for k, m in enumerate(nets):
        who = f"member {k} " if isinstance(net, Ensemble) else ""
        if not m.layers:
            raise UsageError(f"the {who.strip() or 'network'} has no layers")
        arrays += [(f"{who}layer {i} {part}", a) for i, L in enumerate(m.layers)
                   for part, a in (("weight", L.weight), ("bias", L.bias))]
        if not isinstance(net, Ensemble) and m.layers[-1].units != len(net.classes):
            raise UsageError(f"the output layer has {m.layers[-1].units} units but there are "
                             f"{len(net.classes)} classes")
    for what, a in arrays:
        bad = np.argwhere(~np.isfinite(np.asarray(a, dtype=float)))
        if bad.size:
            raise UsageError(f"{what}: {np.asarray(a)[tuple(bad[0])]} at {tuple(int(v) for v in bad[0])} "
                             "is not a finite number")


def _plain(c):
    return c.item() if isinstance(c, np.generic) else c


def save_onnx(net, path: str | Path, unknown: str | None = None) -> Path:
    """Write the ONNX model of ``net`` to ``path`` atomically (:func:`annc.io.outputs.atomic_write`:
    never a half-written file; a missing folder is created); return the path.  ``unknown``:
    as :func:`to_onnx`."""
    path = check_out_file(path)
    data = to_onnx(net, unknown).SerializeToString()
    return atomic_write(path, lambda fh: fh.write(data))
