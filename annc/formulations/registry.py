"""The formulation registries: the spec's names -> the modules that own their mathematics.

The keys of ``ACTIVATIONS`` are those of :data:`annc.core.activations.HIDDEN` (what each
activation means, for the layers below this one; ``tests/test_activations.py`` checks the
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

Weight and bias grids (``weights [lo, hi] grid K``, :mod:`.grid`) are no registry entry:
any layer may have one; its module adds the selectors, and replaces the products of the
activations that relax them (``RELAXES_PRODUCTS``) by exact ones.
"""
from __future__ import annotations

from . import binary, errors, hinge, l0, l1, nll, nopenalty, relu, sign

ACTIVATIONS = {"binary": binary, "relu": relu, "sign": sign}
LOSSES = {"nll": nll, "errors": errors, "hinge": hinge}
PENALTIES = {"none": nopenalty, "l1": l1, "l0": l0}
