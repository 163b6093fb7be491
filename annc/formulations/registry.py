"""The formulation registries: the spec's names -> the modules that own their mathematics.

The keys of ``ACTIVATIONS`` are those of :data:`annc.core.activations.HIDDEN` (what each
activation means, for the layers below this one; ``tests/core/test_activations.py`` checks the
two agree).  A hidden activation module (``ACTIVATIONS``) has ``units`` (lower its units: columns,
rows, a :class:`~.common.LayerInput` with the handles), ``products`` (lower the products
of the next layer's weights with its outputs; returns the pre-activation and the
handles), ``lift_units`` / ``lift_products`` (the same blocks at a given network),
``mip_outputs`` (what the exported units must output at a solver's point, or None),
``product_gap`` (how far relaxed products are from exact, or None), ``exact_rows``
(rows that make relaxed products exact once the weights or the inputs are fixed, or
None for products that are exact already), ``RELAXES_PRODUCTS`` (whether its products
are a relaxation) and ``export_bias_shift``.

A loss module (``LOSSES``) has ``lower(low, o, spec_layer) -> handles``,
``lift(problem, o) -> values``, ``value(spec, scores, counts)`` and ``floor(problem)``;
a penalty module (``PENALTIES``) ``lower(low, weights) -> handles per layer``,
``lift(W) -> values``, ``value(spec, weights)`` and ``floor(problem)``.

A module written outside annc carries its facts (``ACTIVATION``, ``LOSS`` or ``PENALTY``: its
entry of :data:`annc.core.activations.HIDDEN`, :data:`annc.core.losses.LOSS` or
:data:`annc.core.penalties.PENALTY`), and one call, :func:`register`, puts it in its registry
and its facts in the table, where every layer reads them.

Weight and bias grids (``weights [lo, hi] grid K``, :mod:`.grid`) are no registry entry:
any layer may have one; its module adds the selectors, and replaces the products of the
activations that relax them (``RELAXES_PRODUCTS``) by exact ones.
"""
from __future__ import annotations

from collections.abc import Callable

from ..core.activations import HIDDEN
from ..core.losses import LOSS
from ..core.penalties import PENALTY
from . import binary, errors, hinge, l0, l1, nll, nopenalty, relu, sign

ACTIVATIONS = {"binary": binary, "relu": relu, "sign": sign}
LOSSES = {"nll": nll, "errors": errors, "hinge": hinge}
PENALTIES = {"none": nopenalty, "l1": l1, "l0": l0}

# a module's facts attribute -> (its registry, its table)
KINDS = {"ACTIVATION": (ACTIVATIONS, HIDDEN), "LOSS": (LOSSES, LOSS), "PENALTY": (PENALTIES, PENALTY)}


def register(module) -> Callable[[], None]:
    """Put ``module`` in its registry and its facts in their table, in one call: a module with
    ``ACTIVATION`` (an :class:`~annc.core.activations.Activation`) goes into
    :data:`ACTIVATIONS` and ``HIDDEN``, one with ``LOSS`` into :data:`LOSSES` and ``LOSS``, one
    with ``PENALTY`` into :data:`PENALTIES` and ``PENALTY``, under the facts' ``name``, which
    the spec language then accepts.  A module with none of them, or with a name already
    taken, is refused (``ValueError``).  Returns the function that takes it out again."""
    kinds = [k for k in KINDS if hasattr(module, k)]
    if len(kinds) != 1:
        raise ValueError(f"{module.__name__}: a formulation module has exactly one of "
                         f"{', '.join(KINDS)} (found {kinds or 'none'})")
    registry, table = KINDS[kinds[0]]
    facts = getattr(module, kinds[0])
    if facts.name in registry or facts.name in table:
        raise ValueError(f"{module.__name__}: the name {facts.name!r} is taken")
    registry[facts.name], table[facts.name] = module, facts

    def unregister() -> None:
        registry.pop(facts.name, None)
        table.pop(facts.name, None)
    return unregister
