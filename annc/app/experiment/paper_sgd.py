"""The authors' SGD baselines as written (``--baselines paper``), beside annc's correct ones.

The public code of the paper (``vmpatil/MIP-NN-approach``: ``Binary_SGD.py``,
``ReLU_SGD.py``, ``Greedy_Binary_SGD.py``, ``Greedy_ReLU_SGD.py`` and the ``+SGD``
scripts) trains with PyTorch, full batch, ``optim.SGD(lr=0.02, momentum=0.9)``, 10,000
epochs, ``nn.Linear``'s default initialisation, and differs from a textbook network in
two places that this module reproduces in numpy:

1. **Binary units have no gradient.**  The hidden activation is ``x = torch.sign(x)``
   followed by ``x[x <= 0] = 0``: the unit is ``1[pre > 0]`` and ``sign`` has derivative
   0 everywhere, with no straight-through estimator.  So no gradient reaches any layer
   below the output: the hidden weights of a binary network stay at their random
   initialisation, and only the output layer learns (a random-features model).  Here:
   the backward pass multiplies by 0 at binary units (the hidden parameters are
   provably unchanged: a test checks it).
2. **The softmax runs over samples.**  ``nn.LogSoftmax(dim=0)`` on the ``samples x
   classes`` output normalises each class's column over the samples, not each sample
   over the classes; ``nn.NLLLoss`` then takes ``-mean_n ls[n, y_n]``.  With
   ``n_c`` samples of class ``c`` and ``p[:, c] = softmax over samples of z[:, c]``,
   ``d loss / d z[m, c] = -(Y[m, c] - n_c p[m, c]) / N``.  Prediction (their accuracy
   loops) applies ``LogSoftmax(dim=0)`` to one sample's score vector, i.e. over classes:
   the usual argmax, as annc's forward pass.

Optimiser, as written (``Binary_SGD.py`` lines 64-75): ``nn.NLLLoss()`` (mean over the
samples), ``optim.SGD(lr=0.02, momentum=0.9)`` (PyTorch's form ``v <- 0.9 v + g``,
``p <- p - 0.02 v``), 10,000 epochs, each one step on the whole training set (full batch:
``model(X)`` on all 1000 rows).  Initialisation: ``nn.Linear``'s default, weights and
biases ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` - drawn here by :func:`annc.training.warmstart.sgd._init_params`
from ``numpy.random.default_rng(seed)``, float32 arithmetic, so that a ``paper`` run and a
``correct`` run of the same seed start from the same weights and differ only by points 1
and 2.  The greedy variants (``Greedy_*_SGD.py`` lines 26-58 and 187-215) train each hidden
layer with a throw-away output layer on the activations of the layers below, keep the last
throw-away output layer; the ``+SGD`` scripts fine-tune the whole network from there,
loading it with the authors' loop as written (:func:`_reload_as_written`).

Not reproduced bit for bit: the random streams.  The authors seed ``torch.manual_seed`` and
``np.random.seed`` with 1, 2, 3, 4, 7, draw the 1250 inputs with
``np.random.randint(32, size=1250)`` and flip each label with ``torch.bernoulli(0.9)``
(lines 88-91, 165-170); annc has no torch dependency, and every Table 1 method of one seed
shares one draw (:func:`annc.io.datasets.xor_split`).  The distribution is the same: inputs
uniform on ``{0,1}^5``, label the parity of ``x1, x3, x5``, each label of the training
*and* the test set flipped with probability 0.1.

The networks returned are :class:`annc.core.network.TrainedNetwork`; annc's binary unit is
``1[pre >= 0]``, which agrees with the authors' ``1[pre > 0]`` except where ``pre`` is
exactly 0 (probability 0 with these random real weights).
"""
from __future__ import annotations

import numpy as np

from ...core.network import Layer, TrainedNetwork
from ...training.warmstart.sgd import _init_params, _label_indices, _one_hot

MODES = ("correct", "paper")


def _forward(weights, biases, activations, X):
    a, inputs, masks = X, [], []
    for W, b, act in zip(weights[:-1], biases[:-1], activations):
        pre = a @ W + b
        inputs.append(a)
        if act == "binary":  # torch.sign then x[x <= 0] = 0: 1[pre > 0], derivative 0
            a = (pre > 0).astype(pre.dtype)
            masks.append(np.zeros_like(pre))
        elif act == "relu":
            d = (pre > 0).astype(pre.dtype)
            a = pre * d
            masks.append(d)
        else:
            raise ValueError(f"unknown hidden activation {act!r}")
    return a, a @ weights[-1] + biases[-1], inputs, masks


def loss_over_samples(scores: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """``nn.NLLLoss()(nn.LogSoftmax(dim=0)(scores), y)`` and its gradient w.r.t. ``scores``."""
    z = scores - scores.max(axis=0)
    e = np.exp(z)
    s = e.sum(axis=0)
    log_p = z - np.log(s)  # each column a log-distribution over the samples
    n = len(Y)
    loss = -float((log_p * Y).sum()) / n
    grad = -(Y - Y.sum(axis=0) * (e / s)) / n
    return loss, grad.astype(scores.dtype)


def _descend(weights, biases, activations, X, yidx, epochs, lr, momentum, dtype):
    dtype = np.dtype(dtype).type
    weights = [np.array(W, dtype=dtype) for W in weights]
    biases = [np.array(b, dtype=dtype) for b in biases]
    Xd = np.asarray(X, dtype=dtype)
    Y = _one_hot(yidx, weights[-1].shape[1], dtype)
    params = weights + biases
    vel = [np.zeros_like(p) for p in params]
    lr, momentum = dtype(lr), dtype(momentum)
    if activations and set(activations) == {"binary"}:  # only the output layer learns (point 1)
        _descend_output(weights, biases, vel, _forward(weights, biases, activations, Xd)[0], Y, epochs, lr,
                        momentum)
        epochs = 0
    for _ in range(epochs):
        a, scores, inputs, masks = _forward(weights, biases, activations, Xd)
        _, g = loss_over_samples(scores, Y)
        gW, gb = [None] * len(weights), [None] * len(weights)
        gW[-1], gb[-1] = a.T @ g, g.sum(axis=0)
        for layer in range(len(weights) - 2, -1, -1):
            g = (g @ weights[layer + 1].T) * masks[layer]
            gW[layer], gb[layer] = inputs[layer].T @ g, g.sum(axis=0)
        _momentum_step(params, vel, gW + gb, lr, momentum)
    weights = [W.astype(np.float64) for W in weights]
    biases = [b.astype(np.float64) for b in biases]
    _, scores, _, _ = _forward(weights, biases, activations, np.asarray(X, dtype=float))
    return weights, biases, loss_over_samples(scores, _one_hot(yidx, scores.shape[1], float))[0]


def _descend_output(weights, biases, vel, a, Y, epochs, lr, momentum) -> None:
    """The epochs of :func:`_descend` for a net of binary units, in place: their gradient is
    0 (point 1), so every hidden weight keeps its value, the last hidden layer's outputs
    ``a`` are the same at every epoch, and only the output layer's weights, biases and
    velocities change.  The same arithmetic as the general loop, without recomputing what
    cannot change."""
    W, b = weights[-1], biases[-1]
    vW, vb = vel[len(weights) - 1], vel[-1]
    for _ in range(epochs):
        _, g = loss_over_samples(a @ W + b, Y)
        _momentum_step((W, b), (vW, vb), (a.T @ g, g.sum(axis=0)), lr, momentum)


def _momentum_step(params, vel, grads, lr, momentum) -> None:
    """``torch.optim.SGD``'s step, in place: ``v <- momentum v + g``, ``p <- p - lr v``."""
    for p, v, grad in zip(params, vel, grads):
        v *= momentum
        v += grad
        p -= lr * v


def _network(classes, activation, weights, biases, meta) -> TrainedNetwork:
    acts = [activation] * (len(weights) - 1) + ["linear"]
    return TrainedNetwork(list(classes), [Layer(a, W, b) for a, W, b in zip(acts, weights, biases)],
                          {"baselines": "paper", **meta})


def _reload_as_written(weights, biases, n_inputs, hidden, n_classes, seed) -> None:
    """The ``+SGD`` scripts' copy of the pre-trained network into a fresh model, as written:
    the loop of hidden layer 3 is ``for k in range(k)`` (``Greedy_Binary_SGD+SGD.py`` line 88,
    ``Greedy_ReLU_SGD+SGD.py`` 95, ``Greedy_Binary_MIP+SGD.py`` 89), and ``k`` is ``K - 1``
    after layer 2's loop, so layer 3's last unit (its weights and bias) keeps the fresh
    model's random initialisation (drawn here from ``default_rng([seed, depth])``, a stream
    the greedy layers, ``[seed, 0..depth-1]``, do not use).  In place; nothing with < 3
    hidden layers."""
    if len(hidden) < 3:
        return
    fresh_w, fresh_b = _init_params([n_inputs, *hidden, n_classes], np.random.default_rng([seed, len(hidden)]))
    loaded = min(hidden[1] - 1, hidden[2])  # rows k = 0 .. K-2 of torch's (out x in) weight
    weights[2][:, loaded:] = fresh_w[2][:, loaded:]
    biases[2][loaded:] = fresh_b[2][loaded:]


def train_paper_sgd(X, y, hidden, activation: str, *, classes=None, epochs: int = 10000, lr: float = 0.02,
                    momentum: float = 0.9, seed: int = 0, init: TrainedNetwork | None = None,
                    reload_as_written: bool = True, dtype=np.float32) -> TrainedNetwork:
    """The authors' ``Binary_SGD.py`` / ``ReLU_SGD.py`` (or, with ``init``, the fine-tuning
    of their ``+SGD`` scripts, loading ``init`` as they do: :func:`_reload_as_written`,
    unless ``reload_as_written=False``); see the module docstring."""
    X = np.asarray(X, dtype=float)
    yidx, classes = _label_indices(y, classes if classes is not None or init is None else init.classes)
    hidden = [int(h) for h in hidden]
    if init is not None:
        weights = [L.weight.copy() for L in init.layers]
        biases = [L.bias.copy() for L in init.layers]
        if reload_as_written:
            _reload_as_written(weights, biases, X.shape[1], hidden, len(classes), seed)
    else:
        weights, biases = _init_params([X.shape[1], *hidden, len(classes)], np.random.default_rng(seed))
    weights, biases, loss = _descend(weights, biases, [activation] * len(hidden), X, yidx, epochs, lr, momentum,
                                     dtype)
    return _network(classes, activation, weights, biases,
                    {"method": "paper_sgd" if init is None else "paper_greedy_sgd+sgd", "activation": activation,
                     "hidden": hidden, "epochs": epochs, "seed": seed, "final_loss": loss})


def train_paper_greedy_sgd(X, y, hidden, activation: str, *, classes=None, epochs: int = 10000, lr: float = 0.02,
                           momentum: float = 0.9, seed: int = 0, dtype=np.float32) -> TrainedNetwork:
    """The authors' ``Greedy_*_SGD.py``: layer ``k`` with a throw-away output layer on the
    frozen layers' activations (initialised from ``default_rng([seed, k])`` as
    :func:`annc.training.warmstart.sgd.train_greedy_sgd`); the last output layer is kept."""
    A = np.asarray(X, dtype=float)
    yidx, classes = _label_indices(y, classes)
    layers, loss = [], None
    for k, h in enumerate(int(h) for h in hidden):
        weights, biases = _init_params([A.shape[1], h, len(classes)], np.random.default_rng([seed, k]))
        weights, biases, loss = _descend(weights, biases, [activation], A, yidx, epochs, lr, momentum, dtype)
        layers.append(Layer(activation, weights[0], biases[0]))
        out = Layer("linear", weights[1], biases[1])
        A = _forward([weights[0], weights[1]], [biases[0], biases[1]], [activation], A)[0]
    return TrainedNetwork(list(classes), layers + [out],
                          {"baselines": "paper", "method": "paper_greedy_sgd", "activation": activation,
                           "hidden": [int(h) for h in hidden], "epochs": epochs, "seed": seed, "final_loss": loss})
