"""A setting of model selection as a network on all the training rows (:mod:`annc.training.modelselect.cvselect`).

The folds score each setting on parts of the rows; the final training starts from (or keeps) the
chosen setting's network on all of them.  Each function here gives that network on the **raw**
inputs, since the final training scales the inputs its own way: :func:`raw_network` converts a
network fitted on scaled inputs, :func:`path_on_rows` runs the folds' cheap path on all rows,
and :func:`kept_on_rows` fits a logistic separator or a tree there.
"""
from __future__ import annotations

from ...io.data import Dataset
from ...io.spec import NetworkSpec
from ...solve.compiler import build
from ..context import RunContext
from ..warmstart.pool import hidden_network
from .cvpath import Plan, Setting, fold_path, kept_point, spec_at

__all__ = ["kept_on_rows", "path_on_rows", "raw_network"]


def raw_network(layers, scaling) -> tuple[list, list]:
    """A network ``(W, b)`` per layer on the scaled inputs ``x' = (x - c) / w`` as the same network
    on the **raw** inputs (the final training scales them its own way):
    ``pre = W0' x' + b0 = (W0' / w) x + (b0 - (c / w) W0')``."""
    W, b = layers
    W0 = W[0] / scaling.width[:, None]
    return [W0] + list(W[1:]), [b[0] - scaling.center @ W0] + list(b[1:])


def path_on_rows(spec: NetworkSpec, data: Dataset, plan: Plan, i: int, ctx: RunContext, merge: bool):
    """Setting ``i``'s network by the folds' cheap path on all of ``data`` (every narrower width's
    path of the same eps, then the setting's width down to its l0 weight, as on the folds: a width's
    pool holds the narrower width's networks padded with dead units): ``(network on raw inputs,
    its accuracy on data)``, or None when the cap stopped it."""
    s = plan.settings[i]
    narrower = [(key, path) for key, path in plan.groups()
                if key[0] == s.eps and (s.width is None or (key[1] is not None and key[1] < s.width))]
    group = narrower + [(key, [t for t in path if t.penalty >= s.penalty]) for key, path in plan.groups() if s in path]
    state: dict = {}
    accuracy = fold_path(spec, data, data, plan, ctx=ctx, merge=merge, groups=group, state=state)[s].accuracy
    return None if accuracy is None else (raw_network(*state["networks"][s]), accuracy)


def kept_on_rows(spec: NetworkSpec, data: Dataset, s: Setting, ctx: RunContext, merge: bool):
    """The kept setting ``s``'s network fitted on all of ``data`` (on raw inputs), for folds cut
    from a sample (:data:`~annc.training.modelselect.cvselect.MAX_CV_ROWS`): as cross-validation refits the
    chosen setting on all the data, L1 logistic regression at the setting's C (or the tree of its
    depth) is fitted on every row and its units repaired off the eps gap on those rows
    (:func:`~annc.training.modelselect.cvpath.kept_point`), rather than the sample's network lifted onto rows it
    never saw.  None when it cannot be lifted."""
    c = build(spec_at(spec, s), data, name="kept", merge=merge)
    x = kept_point(c, s, ctx)
    return None if x is None else raw_network(hidden_network(c.model, x), c.scaling)
