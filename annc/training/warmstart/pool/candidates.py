"""The start pool: networks from SGD, annealing and linear separators, each made a MIP point.

The MIP's bound on XOR reaches the optimum early (the majority vote over the distinct
inputs); what a solver struggles with is *finding* weights that realise it.  SGD finds
hidden layers that do in a fraction of a second, but its weights are not a MIP point:
they leave the weight box and ignore the eps gap.  :func:`sgd_start` repairs them:

1. each binary unit's ``(alpha_k, beta_k)`` is scaled by a positive factor that puts
   its largest entry at 90% of its box (the step ``1[pre >= 0]`` is unchanged); ReLU layers are
   clipped to their boxes (:mod:`.repair`); a layer with a grid (``weights [lo, hi] grid K``)
   then has each weight moved to the nearest grid value (SGD's are not on it), and with a
   bias grid each bias is chosen among the grid's values in step 2;
2. each unit's bias moves so that no row's pre-activation lies in the forbidden gap
   ``(0, eps)``: the threshold goes to the gap of width ``>= eps`` between consecutive
   pre-activations that flips the fewest activations (:mod:`.repair`);
3. the output layer is the optimum of the exact output-layer-only MIP on the last
   hidden layer's activations (as in the paper's Algorithm 2), solved by HiGHS
   (:mod:`.seeding`, on the run's sub-MIP solver: :class:`~annc.training.context.RunContext`) from SGD's own output layer, scaled into its box (one factor for
   the layer keeps every argmax): so under a time limit it is never worse than SGD's;
4. every other column (``h, q, z, lambda, o, omega, r``, the loss's and the penalty's)
   is the formulation's lift of the network (:func:`annc.formulations.lift`), and the
   point is checked against every row and bound of the model; a point that fails is
   dropped (no start is better than a wrong one) (:func:`complete`);
5. :func:`~annc.training.search.local.improve` then runs a fix-and-optimise local search on
   the full MIP (:mod:`annc.training.search`, which composes the pool and the searches);
   under an ``l0`` penalty each sweep begins with a greedy pass that drops weights one
   at a time while the objective falls (one lift each, no solve; docs/decisions.md, "The MIP start").

:func:`annc.training.search.start.start_search` (and ``mip_start``, its point) runs 1-4 for each candidate of
the pool (:func:`start_pool`: SGD seeds and sparse linear separators) and 5 on the best
of them, once; the search stops early at a lower bound of the optimum
(:func:`annc.formulations.floor`: the ``nll`` loss floor, the majority-vote bound of
``errors`` and ``hinge``).  It does not restart from other seeds: where its best candidate
is a local optimum of fix-and-optimise, ``annc train`` adds the band neighbourhoods of
:mod:`annc.training.search.lns` (docs/decisions.md, "The MIP start").

SGD trains binary and ReLU hidden layers (:data:`annc.training.warmstart.sgd.HIDDEN_ACTIVATIONS`), all of
one kind: a network with other hidden layers (``sign``, or a mix) gets no SGD start
(:func:`sgd_start` returns None, and the solver starts on its own).

These are search strategies, not formulations: they use the formulations' ``lift``,
``floor`` and ``ACTIVATIONS`` and the one feasibility rule (:meth:`annc.core.model.Model.check`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ....core.model import Model
from ....io.problem import TrainingProblem
from ....solve.compiler import Compiled
from ...context import RunContext
from .linear import separator_networks
from .point import complete
from .repair import repair_network
from .seeding import PRUNE_KEEP, annealed_applies, annealed_start, output_layer, sgd_l1, sgd_start
from .trees import tree_networks

SCREEN = 8  # SGD seeds of a ReLU net (on XOR 4 of 16 seeds of a 3-unit ReLU net find the parity rule); else SEEDS
SEEDS = 2


@dataclass
class Candidate:
    """A network of the start pool: where it comes from, its point and MIP objective."""

    name: str
    x: np.ndarray
    objective: float
    linear: bool = False  # a sparse linear separator (annc.training.warmstart.pool.linear)


def start_pool(model: Model, problem: TrainingProblem, *, seeds: int | None = None,
               ctx: RunContext | None = None, enough=None) -> tuple[list[Candidate], bool]:
    """The pool of candidate starts, each a feasible point of ``model`` with its name:
    SGD seeds ``0 .. seeds - 1`` (steps 1-4; for a penalised spec each seed pruned, and seed
    0 also trained with the lasso), the sparse linear separators of :mod:`.linear` placed in
    the hidden units and the shallow trees of :mod:`.trees` (a unit per split; step 3's exact
    output layer on each), in this order: SGD seed 0, the separators, the trees, seed 0 with the
    lasso, the other seeds.  Every decision is a work limit (seeds,
    epochs, node limits); the run context ``ctx``'s deadline only stops it early, and the second
    value says whether it did.  A Ctrl-C (``ctx``'s interrupt) ends the pool after its first
    candidate (the run keeps the best network so far, and there is none before).  ``ctx``'s
    progress sink hears of each candidate tried, with the best objective so far.  ``enough``: a test
    of an objective (:class:`annc.training.bounds.proof.PoolTest`); once the best candidate passes it, the
    pool has nothing left to gain and ends."""
    relu = model.layout.relaxed or any(ls.activation == "relu" for ls in problem.spec.hidden)
    seeds = seeds or (SCREEN if relu else SEEDS)
    ctx = ctx or RunContext()
    pool: list[Candidate] = []
    candidates = _makers(model, problem, seeds, ctx)
    for n in itertools.count(1):
        if (ctx.interrupted and bool(pool)) or ctx.expired():  # before the next candidate is even fitted
            return pool, True  # (a Ctrl-C stops the pool once it has a candidate to keep)
        name, make, is_linear = next(candidates, (None, None, None))
        if make is None:
            break
        x = make()
        if x is not None:
            pool.append(Candidate(name, x, model.objective(x), linear=is_linear))
            if ctx.interrupt is not None:
                ctx.interrupt.has_solution = True  # a feasible point: from now on a Ctrl-C keeps the best
        best = min((c.objective for c in pool), default=None)  # progress: n tried, the best objective so far
        ctx.report("start pool", elapsed=ctx.elapsed(), candidates=n, best=best)
        if pool and enough is not None and enough(min(c.objective for c in pool)):
            break  # the best meets a lower bound: no candidate can do better
    return pool, ctx.expired()  # the deadline may have cut the last candidate's output layer


def _makers(model: Model, problem: TrainingProblem, seeds: int, ctx: RunContext):
    """The pool's candidates in order, each ``(name, make, linear)``, ``make()`` a point or None: a lazy
    sequence (each separator and tree is fitted only when the pool reaches it)."""
    penalised = sgd_l1(problem.spec) > 0

    def sgd(seed: int, lasso: bool):
        return lambda: sgd_start(model, problem, seed=seed, lasso=lasso, ctx=ctx,
                                 prune=PRUNE_KEEP if penalised and not lasso else ())

    def annealed():
        return annealed_start(model, problem, ctx=ctx)

    def linear(weights, biases):
        return lambda: network_start(model, problem, weights, biases, scale=False, ctx=ctx)

    def tree(weights, biases):  # the splits keep their thresholds: the biases alone move off the gap
        return lambda: network_start(model, problem, weights, biases, scale=False, refit=False, ctx=ctx)

    # SGD seed 0 first (on the 10-class set its network beats every separator by a third, and a
    # separator's exact output layer costs as much as an SGD run there), then the separators
    # (the pool's floor: never trivial), then the lasso and the other seeds
    # (each separator is fitted only when the pool reaches it: a lazy sequence)
    makers = [("annealed sigmoids", annealed, False)] if annealed_applies(problem) else []
    makers += [("SGD seed 0", sgd(0, False), False)]
    separators = ((name, linear(W, b), True) for name, W, b in separator_networks(problem))
    trees = ((name, tree(W, b), False) for name, W, b in tree_networks(problem))
    rest = [("SGD seed 0 with lasso", sgd(0, True), False)] if penalised else []
    rest += [(f"SGD seed {seed}", sgd(seed, False), False) for seed in range(1, seeds)]
    return itertools.chain(makers, separators, trees, rest)


def network_start(model: Model, problem: TrainingProblem, weights: list, biases: list, *,
                  scale: bool = True, refit: bool = True, ctx: RunContext | None = None) -> np.ndarray | None:
    """A given network as a start: repaired into the box and off the eps gap
    (:func:`~annc.training.warmstart.pool.repair.repair_network`), with the exact output layer (step 3) from
    its own (the run context ``ctx`` only caps that MIP); None if it cannot be repaired or
    lifted.  ``scale=False`` keeps the hidden
    units' scale (units an LP fitted with their margin); ``refit=False`` keeps their hyperplanes
    (the biases alone move off the gap)."""
    repaired = repair_network(problem, weights, biases, scale=scale, refit=refit)
    if repaired is None:
        return None
    W, b, H, Wo, bo = repaired
    x = complete(model, problem, W + [Wo], b + [bo])
    out = output_layer(problem, H, ctx, start=(Wo, bo) if x is not None else None)
    y = None if out is None else complete(model, problem, W + [out[0]], b + [out[1]])
    if y is None or (x is not None and model.objective(x) < model.objective(y)):
        return x
    return y


SEED_NAME = "model selection's path on all rows"


def seed_point(c: Compiled, seed: tuple, ctx: RunContext | None = None) -> np.ndarray | None:
    """``seed`` (a network ``(weights, biases)``, its first layer on the raw inputs: the cheap
    path of :mod:`annc.training.modelselect.cvpath` for the setting model selection chose) as a point of
    ``c``: on this model's scaling, repaired into the boxes and off the eps gap, with its exact
    output layer (:func:`~annc.training.warmstart.pool.candidates.network_start`); None if it cannot be lifted.
    Its units keep their scale: they are in their boxes and off the gap already, on the same rows,
    and scaling them into 90% of the box shrank their margins into the gap (docs/decisions.md,
    "The MIP start")."""
    W, b = [np.asarray(w, float) for w in seed[0]], [np.asarray(v, float) for v in seed[1]]
    if c.scaling is not None:  # x = x' w + c: pre = (W0 w) x' + (b0 + c W0)
        W[0], b[0] = W[0] * c.scaling.width[:, None], b[0] + c.scaling.center @ W[0]
    return network_start(c.model, c.problem, W, b, scale=False, ctx=ctx)
