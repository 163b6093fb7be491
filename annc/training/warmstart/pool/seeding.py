"""SGD seeding (steps 1-4 of :mod:`annc.training.warmstart.pool.candidates`): a short SGD run (and, for a penalised
spec, magnitude-pruned versions of it), repaired, the best of them by the MIP objective
with its own or a refitted output layer, then the exact output layer from that one."""
from __future__ import annotations

import copy
import hashlib
import threading
import warnings
from collections import OrderedDict
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression  # imported with the module: not inside a timed step

from ....core.model import Model
from ....core.network import keep_mask
from ....core.penalties import penalty_weight
from ....formulations import formulate
from ....io.problem import TrainingProblem, make_problem
from ...context import RunContext
from ...large.anneal import Rows, best_annealed, pruned_annealed
from ..sgd import HIDDEN_ACTIVATIONS, SgdSettings, train_sgd
from .point import complete
from .repair import box_output, repair_network

OUTPUT_NODES = 5000  # branch-and-bound nodes of the exact output-layer MIP (a work limit)
ANNEAL_SEEDS = 4  # seeds of the annealed sigmoids (annc.training.large.anneal); the best by training accuracy
SGD_FLOPS = 2e9  # budget for the SGD run: epochs = SGD_FLOPS / (samples * weights), capped


def sgd_trains(spec) -> bool:
    """Whether SGD trains ``spec``'s hidden layers: all of one activation of
    :data:`annc.training.warmstart.sgd.HIDDEN_ACTIVATIONS`."""
    acts = {ls.activation for ls in spec.hidden}
    return len(acts) == 1 and acts <= set(HIDDEN_ACTIVATIONS)


def sgd_epochs(problem: TrainingProblem) -> int:
    """Epochs of the SGD seed: ``SGD_FLOPS / (samples * weights)``, within [100, 10000]."""
    return int(np.clip(SGD_FLOPS / (problem.num_samples * spec_weights(problem.spec)), 100, 10000))


def spec_weights(spec) -> int:
    """The number of weights of ``spec``'s network (every layer's inputs times units; biases not counted)."""
    sizes = [spec.inputs] + [ls.units for ls in spec.layers]
    return sum(a * b for a, b in zip(sizes, sizes[1:]))


def sgd_net(problem: TrainingProblem, *, seed: int = 0, lasso: bool = False, most: int | None = None,
            memo: SgdMemo | None = None):
    """The SGD network of the seed (:func:`annc.training.warmstart.sgd.train_sgd` on the problem's samples,
    :func:`sgd_epochs` epochs, at most ``most``, with the lasso of :func:`sgd_l1` when ``lasso``); the spec's
    hidden layers must be ones SGD trains (:func:`sgd_trains`).

    SGD is a function of its inputs alone (seeded, full batch), so the network is remembered
    (``memo``, by default the process's :data:`SGD_MEMO`, by the digest of every input): the eps choice of
    :mod:`annc.training.warmstart.margin` and the start pool's first candidate train the same seed-0
    network of the same rows, and the second takes it from the first instead of training it again (0.7 s of a pair's 2 s in one-vs-one
    under a run's limit)."""
    spec = problem.spec
    X, y, w = problem.class_rows()  # the samples' full-batch loss, on distinct rows
    epochs = sgd_epochs(problem) if most is None else min(sgd_epochs(problem), most)
    hidden, activation = [ls.units for ls in spec.hidden], spec.hidden[0].activation
    classes, l1 = list(range(len(problem.classes))), sgd_l1(spec) if lasso else 0.0
    key = _digest(X, y, w, repr((hidden, activation, classes, epochs, seed, l1)))
    memo = SGD_MEMO if memo is None else memo
    net = memo.get(key)
    if net is None:
        net = train_sgd(X, y, hidden, activation, classes=classes,
                        settings=SgdSettings(epochs=epochs, seed=seed, l1=l1), sample_weight=w)
    memo.put(key, net)
    return copy.deepcopy(net)  # callers may change what they get


SGD_MEMO_SIZE = 4  # SGD networks remembered (each a few weight matrices)


class SgdMemo:
    """SGD networks by the digest of :func:`sgd_net`'s inputs: the ``size`` used most recently, one
    lock around them (a Dask worker may run tasks in threads of one process).  What it holds never
    changes a result, only whether SGD runs again; :meth:`clear` forgets everything."""

    def __init__(self, size: int = SGD_MEMO_SIZE):
        self.size = size
        self._nets: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str):
        with self._lock:
            return self._nets.get(key)

    def put(self, key: str, net) -> None:
        """Remember ``net`` under ``key`` as the most recent; forget the oldest beyond ``size``."""
        with self._lock:
            self._nets[key] = net
            self._nets.move_to_end(key)
            while len(self._nets) > self.size:
                self._nets.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._nets.clear()

    def __len__(self) -> int:
        return len(self._nets)


SGD_MEMO = SgdMemo()  # the process's memory of SGD networks (sgd_net's default; SGD_MEMO.clear() empties it)


def _digest(*parts) -> str:
    """One digest of arrays (their dtype, shape and bytes) and strings."""
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        if isinstance(p, np.ndarray):
            p = np.ascontiguousarray(p)
            h.update(f"{p.dtype}{p.shape}".encode())
            h.update(p.tobytes())
        else:
            h.update(str(p).encode())
    return h.hexdigest()


def sgd_l1(spec) -> float:
    """The lasso weight of the SGD seed: the spec's penalty weight when it penalises weights
    (``l0`` or ``l1``), else 0.  SGD then sets weights to exactly 0 (proximal steps,
    :func:`annc.training.warmstart.sgd.train_sgd`), and the start, and the solver from it, begin sparse: the MIP
    objective values each weight at ``penalty_weight`` against whole errors, too little for a
    solver to prune within a time limit on its own."""
    return penalty_weight(spec)


PRUNE_KEEP = (0.5, 0.5)  # each pruning keeps half of the hidden weights left: 50%, then 25%


def pruned(problem: TrainingProblem, net, keep: float, *, epochs: int, seed: int = 0):
    """``net`` with only the largest ``keep`` fraction of each hidden layer's non-zero weights left
    non-zero, retrained with the others held at 0 for ``epochs`` epochs (magnitude pruning
    and retraining, the classic route to a sparse network).

    A step unit's weights can be scaled freely, so magnitudes are compared after dividing
    each unit's column by its largest ``|w|``; the output layer is not pruned (the exact
    output-layer MIP chooses its weights, and their penalty, itself)."""
    mask = keep_mask(net, keep)
    acts = {L.activation for L in net.layers[:-1]}
    X, y, w = problem.class_rows()
    return train_sgd(X, y, [L.units for L in net.layers[:-1]], acts.pop(),
                     classes=net.classes, settings=SgdSettings(epochs=epochs, seed=seed, mask=mask), init=net,
                     sample_weight=w)


def refit_output(problem: TrainingProblem, H: np.ndarray, *, epochs: int = 0, seed: int = 0):
    """An output layer fitted by softmax regression (scikit-learn's ``LogisticRegression``,
    lbfgs, deterministic; the rows weighted by their samples) on the *repaired* hidden
    outputs ``H`` (rows of the problem), moved into its box
    (:func:`~annc.training.warmstart.pool.repair.box_output`); ``epochs`` and ``seed`` are not used (an SGD
    run of that many epochs did this before, at a hundred times the cost).  Moving each unit off the eps gap
    flips activations, so the output layer SGD trained with the old ones can fit the new ones
    badly (docs/decisions.md, "The MIP start"); one refitted on them costs a fraction of a second
    and no solve."""
    u, j = np.nonzero(problem.counts)
    J = len(problem.classes)
    present = np.unique(j)
    W, b = np.zeros((H.shape[1], J)), np.zeros(J)
    if len(present) < 2:
        b[present] = 1.0
        return box_output(problem, W, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LogisticRegression(C=100.0, max_iter=1000).fit(H[u], j, sample_weight=problem.counts[u, j])
    coef, icpt = np.atleast_2d(m.coef_), np.ravel(m.intercept_)
    if len(present) == 2:  # one score for the second class: split it between the two
        coef, icpt = np.vstack([-coef / 2, coef / 2]), np.r_[-icpt / 2, icpt / 2]
    W[:, present], b[present] = coef.T, icpt
    b[np.setdiff1d(np.arange(J), present)] = -1.0  # classes absent from the data never win
    return box_output(problem, W, b)


def output_layer(problem: TrainingProblem, H: np.ndarray, ctx: RunContext | None = None, start=None,
                 node_limit: int = OUTPUT_NODES):
    """Step 3: the optimal output layer for hidden activations ``H`` (rows of the problem),
    or the best the run's sub-MIP solver finds in ``node_limit`` nodes (the run context
    ``ctx`` only caps it), from ``start = (W, b)`` (an output layer in its box) when given:
    the result is then never worse than ``start``."""
    sub = replace(problem.spec, inputs=H.shape[1], hidden=(), training="full")
    pb = make_problem(sub, H[problem.sample_row], problem.y, problem.classes, weights=problem.weights)
    m = formulate(pb, name="start")
    x0 = None if start is None else complete(m, pb, [start[0]], [start[1]])
    r = (ctx or RunContext()).solve(m, node_limit=node_limit, start=x0, gap=None)
    if r.x is None:
        return None
    out = m.layout.layers[0]
    return r.x[out.weight], r.x[out.bias]


def sgd_start(model: Model, problem: TrainingProblem, *, seed: int = 0, lasso: bool = True,
              prune: tuple = (), ctx: RunContext | None = None, epochs: int | None = None) -> np.ndarray | None:
    """A feasible start for ``model`` (steps 1-4), or None.  None also when the hidden
    layers are not all of one activation that SGD trains (:data:`annc.training.warmstart.sgd.HIDDEN_ACTIVATIONS`).
    ``lasso``: SGD adds the lasso of :func:`sgd_l1` (nothing when the spec has no penalty).
    ``prune``: also the networks :func:`pruned` to each of these fractions in turn.
    ``epochs``: at most this many epochs of SGD (None: :func:`sgd_epochs`).

    Each network (SGD's, then each pruned one) is repaired with its own output layer
    (:func:`~annc.training.warmstart.pool.repair.repair_network`) and with one refitted on its repaired
    hidden outputs (:func:`refit_output`), which cost no solve; the one of lowest
    MIP objective then gets the exact output layer (step 3, from its own output layer; the
    run context ``ctx`` only caps it), and the better of the two points is returned."""
    if not sgd_trains(problem.spec):
        return None
    epochs = sgd_epochs(problem) if epochs is None else min(sgd_epochs(problem), epochs)
    nets = [sgd_net(problem, seed=seed, lasso=lasso, most=epochs)]
    for keep in prune:
        nets.append(pruned(problem, nets[-1], keep, epochs=max(epochs // 2, 1), seed=seed))
    return nets_start(model, problem, nets, ctx=ctx)


ANNEAL_SAMPLES_PER_WEIGHT = 8  # the annealed start enters the pool from this many samples per weight of the spec


def annealed_trains(spec) -> bool:
    """Whether :mod:`annc.training.large.anneal` trains ``spec``'s hidden layers: all ``binary``."""
    return bool(spec.hidden) and all(ls.activation == "binary" for ls in spec.hidden)


def annealed_applies(problem: TrainingProblem) -> bool:
    """Whether the start pool holds the annealed start: the hidden layers are all binary and the
    data has at least :data:`ANNEAL_SAMPLES_PER_WEIGHT` samples per weight of the spec.  The annealed
    network uses every weight, and the l0 penalty's half error a weight does not stop the search
    from fitting the training rows with them: with fewer samples per weight it overfit, with more
    it found what SGD did not (docs/decisions.md, "The MIP start").  Choosing the penalty by
    cross-validation is the general answer (issue 36)."""
    return (annealed_trains(problem.spec)
            and problem.num_samples >= ANNEAL_SAMPLES_PER_WEIGHT * spec_weights(problem.spec))


def annealed_start(model: Model, problem: TrainingProblem, *, seeds: int = ANNEAL_SEEDS,
                   ctx: RunContext | None = None, prune: bool = True) -> np.ndarray | None:
    """A feasible start from the annealed sigmoids of :mod:`annc.training.large.anneal` (the best of
    ``seeds`` seeds by training accuracy, on the problem's distinct rows weighted by their
    samples), rounded to step units and finished as :func:`sgd_start` finishes SGD's network
    (repair, refitted or exact output layer); under a weight penalty also its pruned networks
    (:func:`~annc.training.large.anneal.pruned_annealed`), the MIP objective choosing (``prune=False``:
    never, as cross-validation's folds do).  None unless every hidden layer is binary.
    The run context ``ctx`` only caps it; with an executor (the large-data path on Dask) its
    seeds run as tasks (:func:`~annc.training.large.anneal.best_annealed`)."""
    if not annealed_trains(problem.spec):
        return None
    ctx = ctx or RunContext()
    X, y, w = problem.class_rows()
    rows = Rows(X, y, len(problem.classes), w)
    net, _ = best_annealed(rows, [ls.units for ls in problem.spec.hidden], seeds=range(seeds), stop=ctx.stopped,
                           ctx=ctx)
    nets = [net]
    if prune and sgd_l1(problem.spec) > 0:  # a weight penalty: the pruned networks too, the objective chooses
        nets += pruned_annealed(rows, net, stop=ctx.stopped)
    return nets_start(model, problem, nets, ctx=ctx)


def nets_start(model: Model, problem: TrainingProblem, nets: list, *,
               ctx: RunContext | None = None) -> np.ndarray | None:
    """The best start of trained networks ``nets`` (of the problem's classes by index): each
    repaired with its own output layer and with a refitted one, the best of them by MIP
    objective then given the exact output layer (the run context ``ctx`` only caps it)."""
    best, first = None, None  # (objective, point, hidden weights, biases, H, output layer)
    for candidate in nets:
        repaired = repair_network(problem, [L.weight for L in candidate.layers], [L.bias for L in candidate.layers])
        if repaired is None:
            continue
        W, b, H, Wo, bo = repaired
        for out in ((Wo, bo), refit_output(problem, H)):
            x = complete(model, problem, W + [out[0]], b + [out[1]])
            here = (np.inf if x is None else model.objective(x), x, W, b, H, out)
            first = first or here
            if x is not None and (best is None or here[0] < best[0]):
                best = here
    best = best or first  # no network's own output layer fits: the exact one from no start
    if best is None:
        return None
    _, x, W, b, H, start = best
    out = output_layer(problem, H, ctx, start=start if x is not None else None)
    y = None if out is None else complete(model, problem, W + [out[0]], b + [out[1]])
    if y is None or (x is not None and model.objective(x) < model.objective(y)):
        return x
    return y
