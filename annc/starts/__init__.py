"""MIP starts: hidden layers from a short SGD run, the output layer from an exact MIP.

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
   (:mod:`.seeding`) from SGD's own output layer, scaled into its box (one factor for
   the layer keeps every argmax): so under a time limit it is never worse than SGD's;
4. every other column (``h, q, z, lambda, o, omega, r``, the loss's and the penalty's)
   is the formulation's lift of the network (:func:`annc.formulations.lift`), and the
   point is checked against every row and bound of the model; a point that fails is
   dropped (no start is better than a wrong one) (:func:`complete`);
5. :func:`improve` then runs a fix-and-optimise local search on the full MIP (:mod:`.search`);
   under an ``l0`` penalty each sweep begins with a greedy pass that drops weights one
   at a time while the objective falls (one lift each, no solve: on the 10-class set of
   ``bench/realdata.py`` it takes the start of split 0 from 120 non-zero weights to 84).

:func:`mip_start` repeats 1-5 from other SGD seeds while the budget lasts and the point
is above a lower bound of the optimum (:func:`annc.formulations.floor`: the ``nll`` loss
floor, the majority-vote bound of ``errors`` and ``hinge``).  On the paper's XOR
instance (1000 samples, 5-5-2) the first SGD point is 2-40% above the optimum; freeing
the hidden layer under the fixed output layer closes that gap in one step of about a
second (``bench/formulation_bench.py``).

SGD trains binary and ReLU hidden layers (:data:`annc.sgd.HIDDEN_ACTIVATIONS`), all of
one kind: a network with other hidden layers (``sign``, or a mix) gets no SGD start
(:func:`sgd_start` returns None, and the solver starts on its own).

These are search strategies, not formulations: they use the formulations' ``lift``,
``floor`` and ``ACTIVATIONS`` and the one feasibility rule (:meth:`annc.model.Model.check`).
"""
from __future__ import annotations

import time

import numpy as np

from ..formulations import floor as lower_bound
from ..formulations import ordered
from ..model import Model
from ..problem import TrainingProblem
from .finish import finish
from .point import complete, feasible
from .repair import repair_hidden
from .search import fix_layers, improve
from .seeding import PRUNE_KEEP, output_layer, pruned, sgd_l1, sgd_start

__all__ = ["complete", "feasible", "finish", "fix_layers", "improve", "mip_start", "ordered", "output_layer",
           "pruned", "repair_hidden", "sgd_start"]


OUTPUT_LIMIT = 10.0  # seconds for one exact output-layer MIP (step 3), at most what is left of the budget
MIN_OUTPUT_LIMIT = 1.0  # ... but at least this: the first seed's start needs its output layer
SCREEN = 4  # SGD seeds screened per restart of a ReLU net or a net with a weight penalty; else 1


def mip_start(model: Model, problem: TrainingProblem, *, budget: float = 20.0,
              interrupt=None, restarts: int = 8, screen: int | None = None) -> np.ndarray | None:
    """The best point of steps 1-5 over SGD restarts (seeds 0, 1, ...), or None.

    Each restart screens ``screen`` SGD seeds (steps 1-4) and improves the best of them
    (step 5).  SGD's step-unit networks repair into good starts, so one seed a restart
    is enough; SGD on ReLU nets often ends in a poor local minimum (on the paper's XOR
    data, 4 of 16 seeds of a 3-unit ReLU net reach the parity rule), so a net with a
    ReLU layer (relaxed products, or exact ones on a weight grid) screens
    :data:`SCREEN` by default, and so does a net whose spec penalises weights (the default
    recipe): on real data a step-unit SGD net depends on its seed (on ``make_circles`` with
    4 binary units, seed 0 ends near chance and the MIP cannot leave it in 30 s; screening
    4 seeds gives a 69% network, ``bench/realdata.py``).  Each restart's local search
    gets a quarter of the budget, even when the seeding has spent what was left (so the
    search may end a quarter of the budget late: on real data the seeding alone often
    spends it, and a point that no search has improved is a poor start).  Restarts stop
    when the point reaches a lower bound of the optimum (:func:`annc.formulations.floor`:
    it is then optimal), when the budget is spent, after ``restarts`` runs, or on Ctrl-C.

    A spec that penalises weights screens each seed twice: with SGD's lasso
    (:func:`~annc.starts.seeding.sgd_l1`: a sparse start), then without it, also pruned by
    magnitude to a half and a quarter of its hidden weights and retrained
    (:func:`~annc.starts.seeding.pruned`); the MIP objective picks, so a lasso that prunes
    a net into a constant classifier (on ``make_circles`` a 4-unit binary net loses every
    weight) does not become the start, and the pruned nets give the solver sparse points
    that its own search (one weight at a time) rarely reaches in a time limit.
    Each start's exact output layer (step 3) gets at most :data:`OUTPUT_LIMIT` seconds
    and what is left of the budget (at least :data:`MIN_OUTPUT_LIMIT`).
    """
    floor = lower_bound(problem)
    relu = model.layout.relaxed or any(ls.activation == "relu" for ls in problem.spec.hidden)
    penalised = sgd_l1(problem.spec) > 0
    screen = screen or (SCREEN if relu or penalised else 1)
    t0 = time.perf_counter()
    best, best_obj = None, np.inf
    seeds = iter(range(restarts * screen))  # screen 1: seeds 0, 1, ... one a restart
    for _ in range(restarts):
        left = budget - (time.perf_counter() - t0)
        if left <= 0 or best_obj <= floor + 1e-6 or (interrupt is not None and interrupt.requested):
            break
        points, tried = [], 0
        while tried < screen and (tried == 0 or time.perf_counter() - t0 < budget):
            seed = next(seeds, None)
            if seed is None:
                break
            tried += 1
            for lasso in (True, False) if penalised else (False,):
                left = budget - (time.perf_counter() - t0)
                x = sgd_start(model, problem, seed=seed, lasso=lasso,
                              prune=PRUNE_KEEP if penalised and not lasso else (),
                              time_limit=min(OUTPUT_LIMIT, max(left, MIN_OUTPUT_LIMIT)))
                if x is not None:
                    points.append(x)
        if not points:
            continue
        x = improve(model, problem, min(points, key=model.objective), budget=budget / 4, floor=floor,
                    interrupt=interrupt)
        obj = model.objective(x)
        if obj < best_obj:
            best, best_obj = x, obj
    return best
