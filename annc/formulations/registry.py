"""The formulation registries: the spec's names -> the modules that own their mathematics.

A hidden activation module (``ACTIVATIONS``) has ``units`` (lower its units: columns,
rows, a :class:`~.common.LayerInput` with the handles), ``products`` (lower the products
of the next layer's weights with its outputs; returns the pre-activation and the
handles), ``lift_units`` / ``lift_products`` (the same blocks at a given network),
``mip_outputs`` (what the exported units must output at a solver's point, or None),
``product_gap`` (how far relaxed products are from exact, or None) and
``export_bias_shift``.

A loss module (``LOSSES``) has ``lower(low, o, spec_layer) -> handles``,
``lift(problem, o) -> values``, ``value(spec, scores, counts)`` and ``floor(problem)``;
a penalty module (``PENALTIES``) ``lower(low, weights) -> handles per layer``,
``lift(W) -> values``, ``value(spec, weights)`` and ``floor(problem)``.
"""
from __future__ import annotations

from . import binary, errors, hinge, l0, l1, nll, nopenalty, relu, sign

ACTIVATIONS = {"binary": binary, "relu": relu, "sign": sign}
LOSSES = {"nll": nll, "errors": errors, "hinge": hinge}
PENALTIES = {"none": nopenalty, "l1": l1, "l0": l0}
