"""Annealed sigmoids: gradient training of step units, the start pool's seed at any scale.

A binary unit ``1[pre >= 0]`` has no useful gradient, and the straight-through estimator of
:mod:`annc.training.warmstart.sgd` (the paper's trainer) trains it poorly once the data is large:
it can end at a linear separator where a small ``MLPClassifier`` fits the curve
(docs/decisions.md, "The MIP start").  The classic remedy is a continuation: train the
smooth unit ``sigma(k pre)`` and let the sharpness ``k`` grow, so that the network the
gradient sees becomes the step network it will be rounded to:

* hidden layer ``l``: ``a_l = sigma(k_t (a_{l-1} W_l + b_l))``, ``sigma(u) = 1 / (1 + e^-u)``;
* the output scores ``s = a_L W_o + b_o``; the loss is the (row-weighted) mean softmax
  cross-entropy, as in :mod:`annc.training.warmstart.sgd`;
* the sharpness follows a geometric schedule ``k_t = k_0 (k_1 / k_0)^(t / T)`` over the
  ``T`` steps (``k_0 = 1``, ``k_1 = 50`` by default: at ``k = 50`` a unit whose pre-activation
  is 0.1 away from its threshold is within 0.7% of its step);
* Adam (Kingma and Ba) on every weight and bias, learning rate ``lr``;
* the rounded network replaces each ``sigma(k pre)`` by ``1[pre >= 0]`` (``k`` only rescales
  ``pre``, so the weights need no change) and keeps the output layer.

**Data-dependent initialisation.** Each unit's hyperplane passes through a training row
drawn at random (``b = -x_r . w`` for a random direction ``w``), so every unit starts by
splitting the data (a unit whose hyperplane misses the data is constant, and its gradient
vanishes as ``k`` grows).

**Work, not time.** Every decision is a work limit: ``steps`` Adam steps on minibatches of at
most ``batch`` rows (the whole data when it is smaller), drawn by a seeded generator, so the
same inputs give the same network under any load.  A ``stop`` callable (the run context's
:meth:`~annc.training.context.RunContext.stopped`) only stops the run early; the network so far is returned.
:func:`best_annealed` trains several seeds and keeps the rounded network of highest
weighted training accuracy.

**Seeds on a cluster.**  The seeds are independent: with an open
:class:`~annc.training.large.executor.Executor` (the large-data path under ``--workers`` /
``--scheduler``) each seed is one task (:func:`seed_task`), which receives every setting
(steps, batch, rate, sharpness) from this process and a cap of its own (what the caller's
deadline has left, from when the task starts).  The caller waits at most that long (plus a
grace), then keeps the best of the seeds that came back, ties to the first seed, as in this
process: the same seeds and work limits give the same network with and without workers;
only a binding cap can differ, as it does in this process under load.  When no seed comes
back (every worker lost), seed 0 is trained here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...core.network import Layer, TrainedNetwork, keep_mask

STEPS = 3000  # Adam steps of one seed
BATCH = 1024  # rows per step at most (the whole data when smaller): the work per step is bounded
SHARPNESS = (1.0, 50.0)  # k_0, k_1 of the geometric schedule
LR = 0.05
WIDTH = 4.0  # the initial directions' scale: the data is scaled into [0, 1] (or standardised)


def _sigmoid(u: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * u))  # no overflow for large |u|


def _init(X: np.ndarray, sizes: list[int], rng: np.random.Generator):
    """Weights ``(in x out)`` and biases: each hidden unit's hyperplane through a random row
    (of the previous layer's smooth outputs at ``k_0``); the output layer small and random."""
    weights, biases = [], []
    a = X
    for l, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        W = rng.normal(0.0, 1.0, size=(fan_in, fan_out))
        if l < len(sizes) - 2:
            W *= WIDTH / np.maximum(np.linalg.norm(W, axis=0, keepdims=True), 1e-12)
            rows = a[rng.integers(0, len(a), size=fan_out)]
            b = -np.einsum("ij,ji->i", rows, W)
            a = _sigmoid(a @ W + b)
        else:
            W *= 0.1
            b = np.zeros(fan_out)
        weights.append(W)
        biases.append(b)
    return weights, biases


def _loss_grad(weights, biases, X, Y, w, k):
    """Weighted softmax cross-entropy of the annealed network at sharpness ``k`` and its
    gradients (``w`` sums to 1)."""
    acts = [X]
    for W, b in zip(weights[:-1], biases[:-1]):
        acts.append(_sigmoid(k * (acts[-1] @ W + b)))
    s = acts[-1] @ weights[-1] + biases[-1]
    s -= s.max(axis=1, keepdims=True)
    e = np.exp(s)
    p = e / e.sum(axis=1, keepdims=True)
    loss = float(-(w * np.log(np.maximum((p * Y).sum(axis=1), 1e-300))).sum())
    g = (p - Y) * w[:, None]
    gW, gb = [None] * len(weights), [None] * len(weights)
    for l in range(len(weights) - 1, -1, -1):
        gW[l] = acts[l].T @ g
        gb[l] = g.sum(axis=0)
        if l:
            a = acts[l]
            g = (g @ weights[l].T) * (k * a * (1.0 - a))
    return loss, gW, gb


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class Rows:
    """The rows an annealed network is trained on: ``X``, each row's class index ``yidx`` (``0 ..
    classes - 1``) and its weight (None: 1 each; the representatives' rows stand for their samples)."""

    X: np.ndarray
    yidx: np.ndarray
    classes: int
    weight: np.ndarray | None = None

    def aligned(self) -> Rows:
        """The rows as C-contiguous arrays aligned to their items (:func:`aligned`)."""
        return Rows(aligned(self.X, float), aligned(self.yidx, int), self.classes,
                    None if self.weight is None else aligned(self.weight, float))


@dataclass(frozen=True)
class Schedule:
    """The annealing's work and its schedule: ``steps`` Adam steps at rate ``lr`` on minibatches of at
    most ``batch`` rows, the sharpness growing geometrically from ``sharpness[0]`` to ``sharpness[1]``."""

    steps: int = STEPS
    batch: int = BATCH
    lr: float = LR
    sharpness: tuple[float, float] = SHARPNESS


def train_annealed(rows: Rows, hidden: list[int], *, seed: int = 0, schedule: Schedule = Schedule(),
                   stop: Callable[[], bool] | None = None, init: TrainedNetwork | None = None,
                   mask: list | None = None) -> TrainedNetwork:
    """One seed of the annealed training (module docstring) on ``rows`` under ``schedule``; returns
    the rounded step network (hidden layers ``binary``, classes ``0 .. rows.classes - 1``).

    ``init`` (a network of this shape) starts from its weights instead of the data-dependent
    initialisation; ``mask`` (one 0/1 array per weight matrix) holds the weights where it is 0
    at exactly 0 (zeroed first, their gradient masked): pruning, then retraining at the
    sharpness given (:func:`pruned_annealed`)."""
    X = np.asarray(rows.X, float)
    yidx = np.asarray(rows.yidx, int)
    n, n_classes = len(X), rows.classes
    w_all = np.ones(n) if rows.weight is None else np.asarray(rows.weight, float)
    rng = np.random.default_rng([seed, 7])
    sizes = [X.shape[1], *[int(h) for h in hidden], n_classes]
    weights, biases = _init(X, sizes, rng)
    if init is not None:
        weights = [L.weight.astype(float).copy() for L in init.layers]
        biases = [L.bias.astype(float).copy() for L in init.layers]
    masks = None if mask is None else [np.asarray(m) != 0 for m in mask]
    if masks is not None:
        weights = [np.where(m, W, 0.0) for W, m in zip(weights, masks)]
    Y_all = np.zeros((n, n_classes))
    Y_all[np.arange(n), yidx] = 1.0
    done = _adam(weights, biases, (X, Y_all, w_all / w_all.sum()), masks, schedule, rng, stop)
    layers = [Layer("binary", W.copy(), b.copy()) for W, b in zip(weights[:-1], biases[:-1])]
    layers.append(Layer("linear", weights[-1].copy(), biases[-1].copy()))
    k0, k1 = schedule.sharpness
    return TrainedNetwork(classes=list(range(n_classes)), layers=layers, meta={
        "method": "annealed sigmoid", "seed": seed, "steps": done, "of_steps": schedule.steps,
        "batch": min(schedule.batch, n), "sharpness": [k0, k1], "lr": schedule.lr, "masked": mask is not None})


def _adam(weights, biases, data, masks, schedule: Schedule, rng, stop) -> int:
    """The Adam steps of :func:`train_annealed`, in place on ``weights`` and ``biases``, on ``data``
    (``X``, one-hot ``Y``, each row's probability); the number of steps done."""
    X, Y_all, prob = data
    n, batch, steps, lr = len(X), schedule.batch, schedule.steps, schedule.lr
    params = weights + biases
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2 = 0.9, 0.999
    k0, k1 = schedule.sharpness
    full = n <= batch
    done = 0
    for t in range(1, steps + 1):
        if stop is not None and t % 50 == 0 and stop():
            break
        k = k0 * (k1 / k0) ** ((t - 1) / max(steps - 1, 1))
        if full:
            Xb, Yb, wb = X, Y_all, prob
        else:  # rows drawn by their weight: an unbiased minibatch of the weighted loss
            idx = rng.choice(n, size=batch, p=prob)
            Xb, Yb, wb = X[idx], Y_all[idx], np.full(batch, 1.0 / batch)
        _, gW, gb = _loss_grad(weights, biases, Xb, Yb, wb, k)
        if masks is not None:
            gW = [g * m for g, m in zip(gW, masks)]
        step = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        for p, mi, vi, g in zip(params, m, v, gW + gb):
            mi *= b1
            mi += (1 - b1) * g
            vi *= b2
            vi += (1 - b2) * g * g
            p -= step * mi / (np.sqrt(vi) + 1e-8)
        done = t
    return done


KEEP = (0.5, 0.5)  # each pruning keeps half of the hidden weights left: 50%, then 25%


def pruned_annealed(rows: Rows, net: TrainedNetwork, *, keeps=KEEP, steps: int = STEPS // 2, batch: int = BATCH,
                    stop: Callable[[], bool] | None = None) -> list[TrainedNetwork]:
    """``net`` pruned by :func:`keep_mask` to each share of ``keeps`` in turn (each of the
    last), each retrained on ``rows`` with the pruned weights held at 0 for ``steps`` steps at the
    final sharpness ``k_1`` (magnitude pruning then retraining, the classic route to a sparse
    network): the sparser networks a weight penalty may prefer."""
    out, last = [], net
    schedule = Schedule(steps=steps, batch=batch, sharpness=(SHARPNESS[1], SHARPNESS[1]))
    for keep in keeps:
        if stop is not None and stop():
            break
        last = train_annealed(rows, [L.units for L in net.layers[:-1]], schedule=schedule, init=last,
                              mask=keep_mask(last, keep), stop=stop)
        out.append(last)
    return out


def weighted_accuracy(net: TrainedNetwork, X, yidx, sample_weight=None) -> float:
    """The rounded network's share of the (weighted) rows it classifies right."""
    w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
    right = net.predict_index(np.asarray(X, float)) == np.asarray(yidx, int)
    return float(w @ right / w.sum())


def best_annealed(rows: Rows, hidden: list[int], *, seeds=range(4), schedule: Schedule = Schedule(),
                  stop: Callable[[], bool] | None = None, ctx=None):
    """The rounded network of highest weighted training accuracy on ``rows`` over ``seeds`` (ties:
    the first seed), and the accuracy of each seed's, in order; ``stop()`` stops early (at
    least one seed is trained).  A run context ``ctx`` with an executor runs one seed per task
    (module docstring; ``ctx`` then caps the tasks, and ``stop`` is not used)."""
    if ctx is not None and ctx.executor is not None and len(seeds) > 1:
        return _best_of_tasks(rows, hidden, list(seeds), schedule, ctx)
    best, scores = None, []
    for i, seed in enumerate(seeds):
        if i and stop is not None and stop():
            break
        net = train_annealed(rows, hidden, seed=seed, schedule=schedule, stop=stop)
        acc = weighted_accuracy(net, rows.X, rows.yidx, rows.weight)
        scores.append(acc)
        if best is None or acc > best[0]:
            best = (acc, net)
    return best[1], scores


def seed_task(item) -> tuple[TrainedNetwork, float]:
    """One seed of :func:`best_annealed` as an executor task: ``item = (rows, hidden, seed, schedule,
    cap)``; ``cap`` seconds from when the task starts (None: none) stop it early, in a run context of
    its own.  The rounded network and its weighted training accuracy."""
    from ..context import RunContext
    rows, hidden, seed, schedule, cap = item
    rows = rows.aligned()
    stop = RunContext.create(limit=cap).stopped
    net = train_annealed(rows, hidden, seed=seed, schedule=schedule, stop=stop)
    return net, weighted_accuracy(net, rows.X, rows.yidx, rows.weight)


def aligned(a, dtype) -> np.ndarray:
    """``a`` as a C-contiguous array aligned to its items: an array unpickled on a Dask worker may
    start at any byte (13 mod 64 was seen), and numpy's loops then sum in another order, so a
    seed trained there differed from this process's in the tenth digit."""
    return np.require(a, dtype, ["C_CONTIGUOUS", "ALIGNED"])


def _best_of_tasks(rows: Rows, hidden, seeds, schedule: Schedule, ctx):
    """:func:`best_annealed` with one task per seed on ``ctx.executor`` (module docstring)."""
    from .executor import TaskFailed
    rows = Rows(np.asarray(rows.X, float), np.asarray(rows.yidx, int), rows.classes,
                None if rows.weight is None else np.asarray(rows.weight, float))
    cap = ctx.task_cap()
    items = [(rows, list(hidden), seed, schedule, cap) for seed in seeds]
    done = ctx.executor.run(seed_task, items, names=[f"annealed seed {s}" for s in seeds], retries=0,
                            timeout=ctx.task_wait())
    back = [r for r in done if not isinstance(r, TaskFailed)]
    if not back:  # every task lost: one seed here, stopped by the caller's deadline
        net = train_annealed(rows, hidden, seed=seeds[0], schedule=schedule, stop=ctx.stopped)
        back = [(net, weighted_accuracy(net, rows.X, rows.yidx, rows.weight))]
    best = max(range(len(back)), key=lambda i: (back[i][1], -i))  # ties: the first seed
    return back[best][0], [acc for _, acc in back]
