"""A network as a start: the formulation's lift of it, accepted only if the model accepts it;
and the network at a point."""
from __future__ import annotations

import numpy as np

from ....core.feasibility import START_TOL
from ....core.model import Model
from ....formulations import lift
from ....io.problem import TrainingProblem


def complete(model: Model, problem: TrainingProblem, weights: list, biases: list, *,
             tol: float | None = None) -> np.ndarray | None:
    """The full MIP point of the given weights (:func:`annc.formulations.lift`: units put in
    the spec's symmetry order), or None if it violates the model by more than ``tol``
    (default :data:`annc.core.feasibility.START_TOL`; ``np.inf`` returns the point unchecked)."""
    x = lift(model.layout, model.num_cols, problem, weights, biases)
    return x if feasible(model, x, tol) else None


def feasible(model: Model, x: np.ndarray, tol: float | None = None) -> bool:
    """Whether ``x`` is a start ``model`` accepts: :meth:`~annc.core.model.Model.check` to
    ``tol`` (default :data:`annc.core.feasibility.START_TOL`); ``np.inf`` accepts any point."""
    tol = START_TOL if tol is None else tol
    return tol == np.inf or model.check(x, tol).ok


def hidden_network(model: Model, x: np.ndarray) -> tuple[list, list]:
    """The weights and biases of every layer at the point ``x`` (through the layout)."""
    layers = model.layout.layers
    return [np.asarray(x[L.weight], float) for L in layers], [np.asarray(x[L.bias], float) for L in layers]
