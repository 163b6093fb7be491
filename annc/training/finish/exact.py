"""The exact finish after a relaxed solve: from the solver's relaxed point to a network.

When a layer's products are relaxed (piecewise McCormick after ReLU units, the
paper's Proposition 3), a solver's point ``x`` is a point of the relaxation: its
products ``z`` need not equal ``a q'``, and the network decoded from it (its weights
and biases) may score far worse than the objective says.  The relaxation's optimum is
a lower bound on the training loss, not a network.  :func:`finish` turns the point into
the best *network* it can find, each candidate a true network whose MIP point is its
lift (:func:`annc.formulations.lift`, exact products), so its objective *is* its loss:

1. keep the hidden layers the solver chose (clipped to their boxes, biases moved off
   the eps gap: :func:`~annc.training.warmstart.pool.repair.off_gap` without scaling), compute their true
   outputs, and solve the output layer exactly on them (the output-layer-only MIP,
   as the paper's Algorithm 2 ends);
2. run the fix-and-optimise search (:func:`~annc.training.search.local.improve`) from that
   network: with every layer but one fixed, the relaxed products get the rows
   ``z = a* q'`` or ``z = q'* a`` and each sub-MIP is exact;
3. return the best of these and the given ``candidates`` (the MIP start, a true network
   too) by the objective at their lifts, which is their true loss.
"""
from __future__ import annotations

import numpy as np

from ...core.model import Model
from ...io.problem import TrainingProblem
from ..context import RunContext
from ..search.local import improve
from ..warmstart.pool.point import complete, feasible, hidden_network
from ..warmstart.pool.repair import off_gap
from ..warmstart.pool.seeding import output_layer


def exact_output(model: Model, problem: TrainingProblem, x: np.ndarray,
                 ctx: RunContext | None = None) -> np.ndarray | None:
    """Step 1: the lift of the solver's hidden layers (off the eps gap) with the exact optimal
    output layer on their true outputs; None if no such point satisfies the model."""
    W, b = hidden_network(model, x)
    hidden = off_gap(problem, W, b, scale=False)
    if hidden is None:
        return None
    Wh, bh, H = hidden
    out = output_layer(problem, H, ctx)
    if out is None:
        return None
    return complete(model, problem, Wh + [out[0]], bh + [out[1]])


def finish(model: Model, problem: TrainingProblem, x: np.ndarray, *, candidates=(),
           ctx: RunContext | None = None, floor: float = -np.inf) -> np.ndarray | None:
    """The best exact point (a network's lift) from the relaxed point ``x`` and the exact
    ``candidates`` (steps 1-3 of the module docstring), or None if there is none.

    The run context ``ctx``'s deadline caps the search (the exact output layer takes a quarter
    of it); it stops early at ``floor`` (a lower bound) or on Ctrl-C.
    """
    ctx = ctx or RunContext()
    points = [c for c in candidates if c is not None and feasible(model, c)]
    y = exact_output(model, problem, x, ctx.share(0.25, of_finish=False))
    if y is not None:
        points.append(improve(model, problem, y, ctx=ctx, floor=floor))
    points = [p for p in points if p is not None]
    if not points:
        return None
    return min(points, key=model.objective)
