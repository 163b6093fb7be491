"""A trained network as an ONNX graph, for ONNX runtimes, PyTorch and friends.

The graph is annc's forward pass (:meth:`annc.network.TrainedNetwork.forward`), op by op,
in double precision so that a runtime computes the same numbers:

* input ``X``: ``N x d`` doubles, the raw features;
* the network's input scaling, if it records one: ``x' = (X - center) / width``
  (``Sub``, ``Div``);
* every layer ``pre = a W + b`` (``MatMul``, ``Add``), then its activation:
  ``binary`` ``1[pre >= 0]`` (``GreaterOrEqual`` against 0, ``Cast`` to double),
  ``sign`` ``2 1[pre >= 0] - 1``, ``relu`` (``Relu``), ``linear`` (nothing);
* outputs ``scores`` (``N x C`` doubles, the output layer), ``label`` (``N`` int64, the
  index of the predicted class: ``ArgMax`` with the first maximum, as ``numpy.argmax``)
  and ``class`` (``N``, the predicted class label itself: ``Gather`` from the list of
  classes, as int64 when every class is an integer, as strings otherwise).

The class labels and annc's version are in the model's metadata (``classes`` as JSON).
Why ONNX via the ``onnx`` package: it is the exchange format every deployment runtime
reads (onnxruntime, TensorRT, OpenVINO, ``onnx2torch``), and ``onnx.helper`` builds and
``onnx.checker`` validates the graph, so annc writes no protobuf by hand.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from . import __version__
from .errors import UsageError
from .network import TrainedNetwork
from .outputs import atomic_write, check_out_file

OPSET = 17


def to_onnx(net: TrainedNetwork):
    """The ONNX model (``onnx.ModelProto``) of ``net``; checked by ``onnx.checker``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if not isinstance(net, TrainedNetwork):
        raise UsageError(f"ONNX export takes a TrainedNetwork, not {type(net).__name__}")
    if not net.layers:
        raise UsageError("the network has no layers")
    nodes, inits = [], []

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    x = "X"
    if net.scaling is not None:
        nodes += [helper.make_node("Sub", [x, const("scale_center", net.scaling.center.astype(np.float64))],
                                   ["X_shifted"]),
                  helper.make_node("Div", ["X_shifted", const("scale_width", net.scaling.width.astype(np.float64))],
                                   ["X_scaled"])]
        x = "X_scaled"
    zero = None
    for i, layer in enumerate(net.layers):
        w = const(f"W{i}", layer.weight.astype(np.float64))
        b = const(f"b{i}", layer.bias.astype(np.float64))
        last = i == len(net.layers) - 1
        nodes += [helper.make_node("MatMul", [x, w], [f"mm{i}"]),
                  helper.make_node("Add", [f"mm{i}", b], ["scores" if last else f"pre{i}"])]
        if last:
            if layer.activation != "linear":
                raise UsageError(f"the output layer must be linear, not {layer.activation}")
            break
        act = layer.activation
        if act == "relu":
            nodes.append(helper.make_node("Relu", [f"pre{i}"], [f"a{i}"]))
        elif act in ("binary", "sign"):
            zero = zero or const("zero", np.float64(0.0))
            nodes += [helper.make_node("GreaterOrEqual", [f"pre{i}", zero], [f"on{i}"]),
                      helper.make_node("Cast", [f"on{i}"], [f"step{i}" if act == "sign" else f"a{i}"],
                                       to=TensorProto.DOUBLE)]
            if act == "sign":  # 2 step - 1
                nodes += [helper.make_node("Mul", [f"step{i}", const(f"two{i}", np.float64(2.0))], [f"twice{i}"]),
                          helper.make_node("Sub", [f"twice{i}", const(f"one{i}", np.float64(1.0))], [f"a{i}"])]
        elif act == "linear":
            nodes.append(helper.make_node("Identity", [f"pre{i}"], [f"a{i}"]))
        else:
            raise UsageError(f"no ONNX export for hidden activation {act!r}")
        x = f"a{i}"
    nodes.append(helper.make_node("ArgMax", ["scores"], ["label_kept"], axis=1, keepdims=1, select_last_index=0))
    nodes.append(helper.make_node("Squeeze", ["label_kept", const("axis1", np.asarray([1], dtype=np.int64))],
                                  ["label"]))
    classes = list(net.classes)
    if all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in classes):
        table, class_type = np.asarray(classes, dtype=np.int64), TensorProto.INT64
    else:
        table, class_type = np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING
    nodes.append(helper.make_node("Gather", [const("classes", table), "label"], ["class"], axis=0))

    d, c = net.layers[0].weight.shape[0], net.layers[-1].weight.shape[1]
    graph = helper.make_graph(
        nodes, "annc_network",
        [helper.make_tensor_value_info("X", TensorProto.DOUBLE, ["N", d])],
        [helper.make_tensor_value_info("scores", TensorProto.DOUBLE, ["N", c]),
         helper.make_tensor_value_info("label", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("class", class_type, ["N"])],
        inits)
    model = helper.make_model(graph, producer_name="annc", producer_version=__version__,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = min(model.ir_version, 8)  # readable by onnxruntime releases of the last years
    helper.set_model_props(model, {"classes": json.dumps([_plain(c) for c in classes]),
                                   "annc_version": __version__})
    onnx.checker.check_model(model, full_check=True)
    return model


def _plain(c):
    return c.item() if isinstance(c, np.generic) else c


def save_onnx(net: TrainedNetwork, path: str | Path) -> Path:
    """Write the ONNX model of ``net`` to ``path`` atomically (:func:`annc.outputs.atomic_write`:
    never a half-written file; a missing folder is created); return the path."""
    path = check_out_file(path)
    data = to_onnx(net).SerializeToString()
    return atomic_write(path, lambda fh: fh.write(data))
