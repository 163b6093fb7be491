"""SGD seeding (steps 1-4 of :mod:`annc.starts`): a short SGD run, repaired, with the exact
optimal output layer on its hidden layers."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model import Model
from ..problem import TrainingProblem, make_problem
from ..sgd import HIDDEN_ACTIVATIONS, train_sgd
from .point import complete
from .repair import repair_hidden

SGD_FLOPS = 2e9  # budget for the SGD run: epochs = SGD_FLOPS / (samples * weights), capped


def sgd_l1(spec) -> float:
    """The lasso weight of the SGD seed: the spec's penalty weight when it penalises weights
    (``l0`` or ``l1``), else 0.  SGD then sets weights to exactly 0 (proximal steps,
    :func:`annc.sgd.train_sgd`), and the start, and the solver from it, begin sparse: the MIP
    objective values each weight at ``penalty_weight`` against whole errors, too little for a
    solver to prune within a time limit on its own."""
    return spec.penalty_weight if spec.penalty in ("l0", "l1") else 0.0


def output_layer(problem: TrainingProblem, H: np.ndarray, time_limit: float = 10.0):
    """Step 3: the optimal output layer for hidden activations ``H`` (rows of the problem)."""
    from ..formulations import formulate
    from ..solvers import SolveOptions, solve
    sub = replace(problem.spec, inputs=H.shape[1], hidden=(), training="full")
    pb = make_problem(sub, H[problem.sample_row], problem.y, problem.classes)
    m = formulate(pb, name="start")
    r = solve(m, "highs", SolveOptions(time_limit=time_limit))
    if r.x is None:
        return None
    out = m.layout.layers[0]
    return r.x[out.weight], r.x[out.bias]


def sgd_start(model: Model, problem: TrainingProblem, *, seed: int = 0, lasso: bool = True) -> np.ndarray | None:
    """A feasible start for ``model`` (steps 1-4), or None.  None also when the hidden
    layers are not all of one activation that SGD trains (:data:`annc.sgd.HIDDEN_ACTIVATIONS`).
    ``lasso``: SGD adds the lasso of :func:`sgd_l1` (nothing when the spec has no penalty)."""
    spec = problem.spec
    acts = {ls.activation for ls in spec.hidden}
    if len(acts) != 1 or not acts <= set(HIDDEN_ACTIVATIONS):
        return None
    sizes = [spec.inputs] + [ls.units for ls in spec.layers]
    n_weights = sum(a * b for a, b in zip(sizes, sizes[1:]))
    epochs = int(np.clip(SGD_FLOPS / (problem.num_samples * n_weights), 100, 10000))
    net = train_sgd(problem.X_samples, problem.y, [ls.units for ls in spec.hidden], acts.pop(),
                    classes=list(range(len(problem.classes))), epochs=epochs, seed=seed,
                    l1=sgd_l1(spec) if lasso else 0.0)
    hidden = repair_hidden(problem, [L.weight for L in net.layers], [L.bias for L in net.layers])
    if hidden is None:
        return None
    W, b, H = hidden
    out = output_layer(problem, H)
    if out is None:
        return None
    return complete(model, problem, W + [out[0]], b + [out[1]])
