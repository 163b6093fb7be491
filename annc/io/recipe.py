"""The recipe in force: the loss, the penalty and the eps a MIP is built with, and where each
came from.

A spec that names no loss gets the default recipe (:data:`annc.io.spec.types.RECIPE`): ``loss
errors``, ``penalty l0 0.5`` and an eps the training data choose
(:func:`annc.training.warmstart.margin.choose_eps`: 0.1 or 0.001); a setting the spec writes wins for
that setting only.  A spec that names a loss keeps the language's defaults for the rest (no
penalty, eps 0.01).  Nothing of this used to show: :func:`recipe_of` says, for each of the
three settings, its value and its source:

=====================  ===================================================================
``spec``               the spec writes it (or the spec was built in Python, field by field)
``recipe default``     the default recipe's, because the spec names no loss
``chosen on the data`` the eps :func:`~annc.training.warmstart.margin.choose_eps` took, with its reason
``default``            the language's default for a spec that names its loss
=====================  ===================================================================

and ``chosen by model selection``: cross-validation (the default on real data) or ``--select``'s
grid chose the value among its candidates.

:func:`annc.solve.compiler.build` computes it for every MIP (``Compiled.recipe``) and records it in
the map (``recipe``), so the decoded weights record it too (``meta["recipe"]``); ``annc
compile`` and ``annc train`` print it before the work and repeat it in the summary.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.activations import HIDDEN
from ..core.losses import LOSS
from ..core.penalties import PENALTY
from .spec import NetworkSpec

SPEC = "spec"
RECIPE_DEFAULT = "recipe default"
DATA = "chosen on the data"
DEFAULT = "default"
SELECTED = "chosen by model selection"
SOURCES = (SPEC, RECIPE_DEFAULT, DATA, DEFAULT, SELECTED)
NAMES = ("loss", "penalty", "eps")


@dataclass(frozen=True)
class Setting:
    """One setting in force: its ``name`` (loss, penalty, eps), its ``value`` as the spec
    language writes it, its ``source`` (one of :data:`SOURCES`) and why, where that says more."""

    name: str
    value: str
    source: str
    reason: str | None = None

    def describe(self) -> str:
        """``errors (recipe default: the spec names no loss)``."""
        return f"{self.value} ({self.source}{': ' + self.reason if self.reason else ''})"

    def sentence(self) -> str:
        """``eps 0.1 chosen on the data: SGD's units keep ...``; ``loss nll from the spec``;
        ``loss errors by the default recipe (the spec names no loss)``."""
        how = {SPEC: "from the spec", DEFAULT: "by default", RECIPE_DEFAULT: "by the default recipe"}.get(
            self.source, self.source)
        why = "" if not self.reason else f": {self.reason}" if self.source == DATA else f" ({self.reason})"
        return f"{self.name} {self.value} {how}{why}"

    def to_dict(self) -> dict:
        return {"value": self.value, "source": self.source, "reason": self.reason}


@dataclass(frozen=True)
class Recipe:
    """The loss, penalty and eps of one MIP (:class:`Setting` each)."""

    loss: Setting
    penalty: Setting
    eps: Setting

    @property
    def settings(self) -> tuple[Setting, Setting, Setting]:
        return self.loss, self.penalty, self.eps

    def lines(self) -> list[str]:
        """The three settings, one a line, aligned as the summary's: ``loss      errors (...)``."""
        return [f"{s.name:<18} {s.describe()}" for s in self.settings]

    def to_dict(self) -> dict:
        """What the weights' ``meta`` record under ``recipe``: each setting's value, source and reason."""
        return {s.name: s.to_dict() for s in self.settings}

    def to_record(self) -> dict:
        """What the map records under ``recipe``: each setting's source and reason, not its value
        (the map's spec holds the values: :meth:`from_record`)."""
        return {s.name: {"source": s.source, "reason": s.reason} for s in self.settings}

    @classmethod
    def from_record(cls, record: dict, spec: NetworkSpec) -> "Recipe":
        """The recipe a map records (:meth:`to_record`), with the values of its ``spec``."""
        values = {"loss": loss_value(spec), "penalty": penalty_value(spec), "eps": f"{spec.eps:g}"}
        return cls(*(Setting(n, values[n], record[n]["source"], record[n].get("reason")) for n in NAMES))

    def selected(self, original: NetworkSpec) -> "Recipe":
        """This recipe of a spec ``--select`` chose, with the settings whose value differs from
        the ``original`` spec's marked :data:`SELECTED`."""
        first = recipe_of(original)  # --select chooses the loss's margin and the penalty
        loss, penalty = (s if s.value == o.value else Setting(s.name, s.value, SELECTED, f"the spec's: {o.value}")
                         for s, o in zip(self.settings[:2], first.settings[:2]))
        eps = self.eps
        if original.eps_auto and eps.source in (SPEC, DEFAULT):  # cross-validation wrote the eps the data left open
            eps = Setting("eps", eps.value, SELECTED, "the default recipe leaves it to the data")
        return Recipe(loss, penalty, eps)


def _written(spec: NetworkSpec, key: str) -> bool:
    """Whether the spec writes setting ``key``; a spec built in Python (no text, no positions)
    writes every field it has."""
    if not spec.positions and not spec.text:
        return True
    return key in spec.positions


def loss_value(spec: NetworkSpec) -> str:
    argument = LOSS[spec.loss].argument  # annc.core.losses: hinge takes its margin
    return spec.loss if argument is None else f"{spec.loss} {getattr(spec, argument.name):g}"


def penalty_value(spec: NetworkSpec) -> str:
    """``l0 0.5``, ``none``; with a weight budget ``l0 0.5, max_weights 6``."""
    value = f"{spec.penalty} {spec.penalty_weight:.6g}" if PENALTY[spec.penalty].weighted else spec.penalty
    return value + ("" if spec.max_weights is None else f", max_weights {spec.max_weights}")


def recipe_of(spec: NetworkSpec, chosen=None) -> Recipe:
    """The recipe of ``spec`` as parsed (before its eps is resolved); ``chosen`` the eps the
    data chose for it (an :class:`~annc.training.warmstart.margin.EpsChoice`, or a bare number, or None
    when no rule ran)."""
    recipe = not _written(spec, "loss")  # no loss named: the default recipe fills the rest
    loss = Setting("loss", loss_value(spec), RECIPE_DEFAULT if recipe else SPEC,
                   "the spec names no loss" if recipe else None)
    if _written(spec, "penalty"):
        penalty = Setting("penalty", penalty_value(spec), SPEC)
    elif recipe:
        penalty = Setting("penalty", penalty_value(spec), RECIPE_DEFAULT)
    else:
        penalty = Setting("penalty", penalty_value(spec), DEFAULT, "a spec that names its loss gets none "
                                                                     "unless it names one")
    unused = None if any(HIDDEN[ls.activation].step for ls in spec.hidden) else "unused: no hidden step units"
    if spec.eps_auto and chosen is not None:
        why = getattr(chosen, "reason", None)
        eps = Setting("eps", f"{float(chosen):g}", DATA, "; ".join(w for w in (why, unused) if w) or None)
    elif spec.eps_auto:
        eps = Setting("eps", f"{spec.eps:g}", RECIPE_DEFAULT, "; ".join(
            w for w in ("no rule chose it on the data", unused) if w))
    elif _written(spec, "eps"):
        eps = Setting("eps", f"{spec.eps:g}", SPEC, unused)
    else:
        eps = Setting("eps", f"{spec.eps:g}", DEFAULT, unused)
    return Recipe(loss, penalty, eps)


def summary_lines(recipes: list[tuple[str, Recipe]]) -> list[str]:
    """The summary's recipe lines for the MIPs of a run (``(name, recipe)`` each): each
    setting once when every MIP has it alike, else once per MIP (``eps  0.1 (...) [layer0]``)."""
    out = []
    for k, name in enumerate(NAMES):
        values = [(mip, r.settings[k]) for mip, r in recipes]
        if len({s for _, s in values}) <= 1:
            out += [f"  {values[0][1].name:<18} {values[0][1].describe()}"] if values else []
        else:
            out += [f"  {s.name:<18} {s.describe()} [{mip}]" for mip, s in values]
    return out
