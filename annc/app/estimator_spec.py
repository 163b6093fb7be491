"""The ``.ann`` spec that :class:`annc.app.estimator.MIPNetClassifier`'s parameters write.

``input d``, one ``hidden`` line per entry of ``hidden_layer_sizes``, ``output k`` for the k
classes, then the optional settings (``loss``, ``penalty``, ``max_weights``, ``scale``,
``weights``) and ``extra``; every value is checked as a number or a word of the ``.ann``
language here, so a bad parameter is a :class:`~annc.core.errors.UsageError` that names it,
before the spec parser sees it.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import UsageError
from ..core.losses import with_argument

__all__ = ["hidden_sizes", "spec_text"]


def _number(value, what: str) -> str:
    """``value`` as a number of the ``.ann`` language; a :class:`UsageError` if it is not
    a real number (NaN and infinity are written as such, and the spec parser rejects them)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise UsageError(f"{what} must be a number, not {type(value).__name__} {value!r}")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    return repr(float(value))


def _word(value, what: str) -> str:
    """``value`` as one word of the ``.ann`` language (a name such as ``relu``)."""
    if not isinstance(value, str) or not value.strip() or any(c in value for c in "\n;#{}[],\0"):
        raise UsageError(f"{what} must be a name such as those of the .ann language, not {value!r}")
    return value.strip()



def hidden_sizes(sizes) -> tuple:
    """``hidden_layer_sizes`` as a tuple of widths (an int is one layer; None, none)."""
    if sizes is None:
        return ()
    if isinstance(sizes, numbers.Integral) and not isinstance(sizes, (bool, np.bool_)):
        return (sizes,)
    try:
        return tuple(sizes)
    except TypeError:
        raise UsageError("hidden_layer_sizes must be a tuple of layer widths, not "
                         f"{type(sizes).__name__} {sizes!r}") from None

def spec_text(est, n_features: int, n_classes: int) -> str:
    """The ``.ann`` text of the network the estimator ``est`` (its parameters) trains on
    ``n_features`` features and ``n_classes`` classes."""
    lines = [f"input {int(n_features)}"]
    activation = _word(est.activation, "activation")
    for width in hidden_sizes(est.hidden_layer_sizes):
        lines.append(f"hidden {_number(width, 'a hidden layer width')} {activation}")
    lines.append(f"output {int(n_classes)}")
    if est.loss is not None or est.margin is not None:
        loss = "hinge" if est.loss is None else _word(est.loss, "loss")
        if est.margin is not None:
            takers = with_argument("margin")  # annc.core.losses: hinge
            if loss not in takers:
                raise UsageError(f"margin is the {' or '.join(takers)} loss's margin; it needs "
                                 + " or ".join(f"loss={k!r}" for k in takers) + f", not {loss!r}")
            lines.append(f"loss {loss} {_number(est.margin, 'margin')}")
        else:
            lines.append(f"loss {loss}")
    if est.penalty is not None or est.penalty_weight is not None:
        penalty = _word("none" if est.penalty is None else est.penalty, "penalty")
        if penalty == "none":
            if est.penalty_weight is not None:
                raise UsageError("penalty_weight needs penalty='l1' or 'l0'")
            lines.append("penalty none")
        else:
            if est.penalty_weight is None:
                raise UsageError(f"penalty={penalty!r} needs a penalty_weight")
            weight = est.penalty_weight
            weight = (_word(weight, "penalty_weight") if isinstance(weight, str)  # a word such as auto
                      else _number(weight, "penalty_weight"))
            lines.append(f"penalty {penalty} {weight}")
    if est.max_weights is not None:
        lines.append(f"max_weights {_number(est.max_weights, 'max_weights')}")
    if est.scale is not None:
        lines.append(f"scale {_word(est.scale, 'scale')}")
    if est.weights is not None:
        try:
            lo, hi = est.weights
        except (TypeError, ValueError):
            raise UsageError(f"weights must be a pair (lo, hi), not {est.weights!r}") from None
        lines.append(f"weights [{_number(lo, 'weights lo')}, {_number(hi, 'weights hi')}]")
    if not isinstance(est.extra, str):
        raise UsageError(f"extra must be .ann text (a str), not {type(est.extra).__name__}")
    if "\0" in est.extra:
        raise UsageError("extra has a NUL character")
    if est.extra.strip():
        lines.append(est.extra.strip())
    return "\n".join(lines) + "\n"
