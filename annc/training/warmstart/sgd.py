"""Gradient-descent baselines (numpy only) for the paper's comparison (Table 1).

Settings follow the authors' public code: **full-batch** gradient descent with momentum,
``lr = 0.02``, ``momentum = 0.9``, 10,000 epochs, softmax cross-entropy (mean over samples)
on the linear output scores.

* Momentum is the PyTorch ``torch.optim.SGD`` form (no dampening, no Nesterov, no weight
  decay): ``v <- momentum * v + grad``; ``p <- p - lr * v``.
* Initialisation is PyTorch's ``nn.Linear`` default, i.e. every weight *and* bias of a
  layer with ``fan_in`` inputs is drawn from ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``, from
  ``numpy.random.default_rng(seed)``, layer by layer (weights then biases).
* Binary hidden units (``1[pre >= 0]``, exactly as in :mod:`annc.core.network`) are trained with
  the straight-through estimator in its "hard tanh" form: the backward pass treats the unit
  as the identity clipped to ``[-1, 1]``, i.e. the incoming gradient is multiplied by
  ``1[|pre| <= 1]``.
* Arithmetic is float32 by default (``dtype=``), as in PyTorch, which the authors used; on
  small matrices float32 GEMM is also about twice as fast as float64 here. Initial
  weights are drawn in float64 and cast; the returned network is float64 and ``final_loss``
  is recomputed in float64 with :mod:`annc.core.network`'s forward semantics.
* ReLU backward uses the derivative ``1[pre > 0]`` (0 at ``pre == 0``, as PyTorch).

Everything returned is an :class:`annc.core.network.TrainedNetwork` whose forward pass (real step
/ relu) is the model; the surrogate gradient is used only during training.

Greedy layer-wise SGD (:func:`train_greedy_sgd`): hidden layer ``k`` is trained together
with a throw-away linear output layer on the *real* forward activations of the frozen
layers ``0..k-1``, for ``epochs`` epochs each; the output layer trained with the last hidden
layer becomes the network's output layer. Fine-tuning ("greedy ... + SGD") is
:func:`train_sgd` with ``init=`` that network.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.network import Layer, TrainedNetwork

HIDDEN_ACTIVATIONS = ("binary", "relu")  # those of annc.core.activations.HIDDEN that _hidden trains (a test checks)


@dataclass(frozen=True)
class SgdSettings:
    """How :func:`train_sgd` descends: ``epochs`` of full-batch momentum descent (``lr``, ``momentum``)
    in ``dtype`` from the initialisation drawn with ``seed``; ``l1`` the lasso weight of its
    proximal steps (0: none) and ``mask`` (one 0/1 array per weight matrix, None: none) the weights
    held at exactly 0.  The defaults are the authors' settings (module docstring)."""

    epochs: int = 10000
    lr: float = 0.02
    momentum: float = 0.9
    seed: int = 0
    dtype: type = np.float32
    l1: float = 0.0
    mask: list | None = field(default=None, compare=False)


# -- labels -----------------------------------------------------------------------
def _label_indices(y, classes):
    """Return ``(indices, classes)``; ``y`` holds class labels (default ``0..C-1``)."""
    y = np.asarray(y).ravel()
    if classes is None:
        if y.size == 0 or not np.issubdtype(y.dtype, np.number) or np.any(y < 0) or np.any(y != np.round(y)):
            raise ValueError("without `classes`, y must hold non-negative integer class indices")
        classes = list(range(int(y.max()) + 1))
        return y.astype(int), classes
    classes = list(classes)
    index = {c: i for i, c in enumerate(classes)}
    try:
        idx = np.array([index[v.item() if isinstance(v, np.generic) else v] for v in y], dtype=int)
    except KeyError as e:
        raise ValueError(f"label {e.args[0]!r} is not in classes {classes!r}") from None
    return idx, classes


# -- forward / backward -----------------------------------------------------------
# Written for speed on small matrices: masks are kept as float arrays (same dtype as the
# data), bias gradients are ``ones @ g`` (a GEMV, much faster than ``g.sum(0)``), and the
# labels are a precomputed one-hot matrix.
def _one_hot(yidx, n_classes, dtype):
    Y = np.zeros((len(yidx), n_classes), dtype=dtype)
    Y[np.arange(len(yidx)), yidx] = 1
    return Y


def _softmax_xent(scores: np.ndarray, Y: np.ndarray, w: np.ndarray | None = None):
    """Mean softmax cross-entropy (one-hot targets ``Y``) and its gradient w.r.t. ``scores``;
    with ``w`` (one weight per row, summing to 1) the weighted mean instead.

    Works on the transposed ``C x N`` scores: numpy reduces a short trailing axis slowly.
    """
    z = np.ascontiguousarray(scores.T)
    YT = Y.T
    z -= z.max(axis=0)
    e = np.exp(z)
    s = e.sum(axis=0)
    n = len(Y)
    if w is None:
        loss = float(np.log(s).sum() - (z * YT).sum()) / n
    else:
        loss = float(w @ (np.log(s) - (z * YT).sum(axis=0)))
    e /= s
    e -= YT
    if w is None:
        e *= 1.0 / n
    else:
        e *= w
    return loss, e.T


def _hidden(act, pre, need_grad=True):
    """Activation of ``pre`` and (if ``need_grad``) the backward mask as a float array."""
    if act == "relu":
        d = (pre > 0).astype(pre.dtype)
        return pre * d, d
    if act == "binary":
        a = (pre >= 0).astype(pre.dtype)
        # straight-through estimator, hard-tanh form: d a / d pre := 1[|pre| <= 1]
        return a, ((np.abs(pre) <= 1).astype(pre.dtype) if need_grad else None)
    raise ValueError(f"unknown hidden activation {act!r}")


def loss_and_gradients(weights, biases, activations, X, yidx, n_classes=None, Y=None, w=None):
    """Loss and gradients of a dense net (hidden ``activations``, then a linear output).

    ``weights[l]`` is ``(in x out)``, ``biases[l]`` is ``(out,)``;
    ``len(activations) == len(weights) - 1``. ``yidx`` holds class indices (or pass the
    one-hot ``Y``). The loss is the mean softmax cross-entropy (the ``w``-weighted mean
    with row weights ``w`` summing to 1: full-batch descent on distinct rows with their
    sample counts is descent on the samples, at a fraction of the cost). Binary units use the
    hard-tanh straight-through estimator. Returns ``(loss, grad_weights, grad_biases)``,
    computed in the dtype of ``X`` and the parameters.
    """
    if Y is None:
        Y = _one_hot(np.asarray(yidx), n_classes or weights[-1].shape[1], X.dtype)
    ones = np.ones(len(X), dtype=X.dtype)
    a = X
    inputs, masks = [], []
    for W, b, act in zip(weights[:-1], biases[:-1], activations):
        pre = a @ W
        pre += b
        inputs.append(a)
        a, d = _hidden(act, pre)
        masks.append(d)
    scores = a @ weights[-1]
    scores += biases[-1]
    loss, g = _softmax_xent(scores, Y, w)
    L = len(weights)
    gW = [None] * L
    gb = [None] * L
    gW[-1] = a.T @ g
    gb[-1] = ones @ g
    for l in range(L - 2, -1, -1):
        g = g @ weights[l + 1].T
        g *= masks[l]
        gW[l] = inputs[l].T @ g
        gb[l] = ones @ g
    return loss, gW, gb


def _loss(weights, biases, activations, X, yidx, w=None) -> float:
    a = X
    for W, b, act in zip(weights[:-1], biases[:-1], activations):
        a, _ = _hidden(act, a @ W + b, need_grad=False)
    scores = a @ weights[-1] + biases[-1]
    return _softmax_xent(scores, _one_hot(yidx, scores.shape[1], scores.dtype), w)[0]


def _init_params(sizes, rng):
    weights, biases = [], []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / np.sqrt(fan_in) if fan_in > 0 else 0.0
        weights.append(rng.uniform(-bound, bound, size=(fan_in, fan_out)))
        biases.append(rng.uniform(-bound, bound, size=fan_out))
    return weights, biases


def _descend(weights, biases, activations, X, yidx, settings: SgdSettings, sample_weight=None):
    """Full-batch momentum descent in ``settings.dtype`` (``settings.epochs`` epochs, its ``lr`` and
    ``momentum``); returns float64 ``(weights, biases, loss)`` (the loss recomputed in float64 at the
    final parameters).

    ``settings.mask`` (one 0/1 array per weight matrix, or None) freezes the weights where it is 0
    at exactly 0: they are zeroed first and their gradient is masked at every step
    (magnitude pruning then retraining, :func:`annc.training.warmstart.pool.seeding.pruned`).

    With ``settings.l1 > 0`` each step is followed by the proximal step of ``l1 * sum |W|`` on the
    weights (not the biases): soft thresholding ``W <- sign(W) max(|W| - lr l1, 0)``, which
    sets weights to exactly 0 (proximal gradient descent for the lasso penalty)."""
    mask = settings.mask
    if mask is not None:
        weights = [np.where(np.asarray(m) != 0, W, 0.0) for W, m in zip(weights, mask)]
    w64 = None if sample_weight is None else np.asarray(sample_weight, float) / np.sum(sample_weight)
    if settings.epochs == 0:  # no casting round trip: fine-tuning for 0 epochs returns init exactly
        weights = [np.array(W, dtype=np.float64) for W in weights]
        biases = [np.array(b, dtype=np.float64) for b in biases]
        return weights, biases, _loss(weights, biases, activations, np.asarray(X, dtype=float), yidx, w64)
    dtype = np.dtype(settings.dtype).type
    wd = None if w64 is None else w64.astype(dtype)
    weights = [np.array(W, dtype=dtype) for W in weights]
    biases = [np.array(b, dtype=dtype) for b in biases]
    Xd = np.asarray(X, dtype=dtype)
    masks = None if mask is None else [np.asarray(m != 0, dtype=dtype) for m in mask]
    _epochs(weights, biases, activations, Xd, yidx, wd, masks, settings)
    weights = [W.astype(np.float64) for W in weights]
    biases = [b.astype(np.float64) for b in biases]
    return weights, biases, _loss(weights, biases, activations, np.asarray(X, dtype=float), yidx, w64)


def _epochs(weights, biases, activations, Xd, yidx, wd, masks, settings: SgdSettings) -> None:
    """The epochs of :func:`_descend`, in place on ``weights`` and ``biases`` (in ``Xd``'s dtype)."""
    dtype = Xd.dtype.type
    lr = dtype(settings.lr)
    momentum = dtype(settings.momentum)
    Y = _one_hot(yidx, weights[-1].shape[1], dtype)
    params = weights + biases
    vel = [np.zeros_like(p) for p in params]
    shrink = dtype(lr * settings.l1)
    for _ in range(settings.epochs):
        _, gW, gb = loss_and_gradients(weights, biases, activations, Xd, yidx, Y=Y, w=wd)
        if masks is not None:
            for g, m in zip(gW, masks):
                g *= m
        for p, v, g in zip(params, vel, gW + gb):
            v *= momentum
            v += g
            g = np.multiply(v, lr, out=g)
            p -= g
        if shrink:
            for W in weights:
                np.copyto(W, np.sign(W) * np.maximum(np.abs(W) - shrink, 0))


def _check(hidden, activation, epochs):
    if activation not in HIDDEN_ACTIVATIONS:
        raise ValueError(f"activation must be one of {HIDDEN_ACTIVATIONS}, not {activation!r}")
    if any(int(h) < 1 for h in hidden):
        raise ValueError("every hidden layer needs at least one unit")
    if epochs < 0:
        raise ValueError("epochs must be non-negative")


# -- public API ---------------------------------------------------------------------
def train_sgd(X, y, hidden: list[int], activation: str, *, classes=None, settings: SgdSettings = SgdSettings(),
              init: TrainedNetwork | None = None, sample_weight=None) -> TrainedNetwork:
    """End-to-end full-batch SGD with momentum (``settings``: :class:`SgdSettings`); returns the
    trained network.

    ``settings.mask`` (one 0/1 array per layer's weight matrix) keeps the weights where it is 0 at
    exactly 0 (they start at 0 and get no gradient): retraining after pruning.

    ``sample_weight`` (one positive weight per row) makes the loss the weighted mean: rows
    that stand for several samples (distinct inputs with their counts) train as those samples.

    ``settings.l1 > 0`` adds the lasso penalty ``l1 sum |W|`` on the weights by proximal steps
    (:func:`_descend`): weights it sets to 0 stay exactly 0 in the network returned.

    With ``init`` the weights start from a copy of ``init``'s (fine-tuning); its hidden
    widths and activation must match ``hidden`` and ``activation``, and its classes are
    used unless ``classes`` is given. ``epochs=0`` then returns an equal network.
    """
    hidden = [int(h) for h in hidden]
    _check(hidden, activation, settings.epochs)
    X = np.asarray(X, dtype=float)
    if classes is None and init is not None:
        classes = init.classes
    yidx, classes = _label_indices(y, classes)
    if len(yidx) != len(X):
        raise ValueError("X and y have different numbers of rows")
    if init is not None:
        weights, biases = _init_from(init, X, hidden, activation, len(classes))
    else:
        weights, biases = _init_params([X.shape[1], *hidden, len(classes)], np.random.default_rng(settings.seed))
    acts = [activation] * len(hidden)
    if settings.mask is not None and [np.shape(m) for m in settings.mask] != [W.shape for W in weights]:
        raise ValueError("mask must have one array of each weight matrix's shape")
    if sample_weight is not None and len(sample_weight) != len(X):
        raise ValueError("sample_weight needs one weight per row of X")
    weights, biases, final = _descend(weights, biases, acts, X, yidx, settings, sample_weight)
    method = "sgd" if init is None else f"{init.meta.get('method', 'init')}+sgd"
    layers = [Layer(a, W, b) for a, W, b in zip(acts + ["linear"], weights, biases)]
    return TrainedNetwork(classes=list(classes), layers=layers, meta={
        "method": method, "activation": activation, "hidden": hidden, "epochs": settings.epochs,
        "lr": settings.lr, "momentum": settings.momentum, "seed": settings.seed, "final_loss": final,
        "dtype": np.dtype(settings.dtype).name, "l1": settings.l1, "masked": settings.mask is not None,
        "init": "given" if init is not None else "uniform(+-1/sqrt(fan_in))",
    })


def _init_from(init: TrainedNetwork, X, hidden: list[int], activation: str, n_classes: int):
    """Copies of ``init``'s weights and biases, checked against the network asked for."""
    got_hidden = [L.units for L in init.layers[:-1]]
    got_act = {L.activation for L in init.layers[:-1]}
    if got_hidden != hidden or (hidden and got_act != {activation}) \
            or init.layers[-1].activation != "linear":
        raise ValueError(f"init has hidden {got_hidden} {sorted(got_act)}; expected {hidden} {activation!r}"
                         " with a linear output layer")
    if init.layers[0].weight.shape[0] != X.shape[1] or init.layers[-1].units != n_classes:
        raise ValueError("init's input or output size does not match the data")
    return [L.weight.copy() for L in init.layers], [L.bias.copy() for L in init.layers]


def train_greedy_sgd(X, y, hidden: list[int], activation: str, *, classes=None,
                     settings: SgdSettings = SgdSettings()) -> TrainedNetwork:
    """Greedy layer-wise SGD: each hidden layer is trained (``settings.epochs`` epochs) with a
    throw-away linear output on the real activations of the frozen layers below it.

    Layer ``k`` is initialised from ``default_rng([settings.seed, k])``; ``settings.l1`` and
    ``settings.mask`` do not apply (a ValueError).
    """
    hidden = [int(h) for h in hidden]
    _check(hidden, activation, settings.epochs)
    if not hidden:
        raise ValueError("greedy training needs at least one hidden layer")
    if settings.l1 or settings.mask is not None:
        raise ValueError("greedy SGD takes neither l1 nor mask")
    A = np.asarray(X, dtype=float)
    yidx, classes = _label_indices(y, classes)
    if len(yidx) != len(A):
        raise ValueError("X and y have different numbers of rows")
    n_classes = len(classes)
    layers, losses = [], []
    for k, h in enumerate(hidden):
        weights, biases = _init_params([A.shape[1], h, n_classes], np.random.default_rng([settings.seed, k]))
        weights, biases, loss = _descend(weights, biases, [activation], A, yidx, settings)
        losses.append(loss)
        layer = Layer(activation, weights[0], biases[0])
        layers.append(layer)
        out = Layer("linear", weights[1], biases[1])
        A = TrainedNetwork(classes, [layer]).forward(A)[0]
    layers.append(out)
    return TrainedNetwork(classes=list(classes), layers=layers, meta={
        "method": "greedy_sgd", "activation": activation, "hidden": hidden, "epochs": settings.epochs,
        "lr": settings.lr, "momentum": settings.momentum, "seed": settings.seed, "final_loss": losses[-1],
        "dtype": np.dtype(settings.dtype).name,
        "layer_losses": losses, "init": "uniform(+-1/sqrt(fan_in))",
    })
