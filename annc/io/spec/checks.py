"""Checks: located statements -> :class:`~.types.NetworkSpec`, collecting every problem.

:func:`check` walks the statements of :mod:`.syntax` and gives them meaning: each
setting's values are checked, then the settings against each other (required settings,
``P`` without a ReLU layer, ...); the single values are checked by
:class:`.values.ValueChecker`.  Every problem is recorded with its position; the
spec is built only when there is none.  The spec gets only the settings written (the
rest are the dataclass defaults of :mod:`.types`) and where each was written.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...core.activations import HIDDEN, takes_pieces
from ...core.errors import Diagnostic
from ...core.limits import MAX_GRID, MAX_LAYERS, MAX_PIECES, MAX_UNITS
from ...core.losses import LOSS, with_argument
from ...core.penalties import PENALTY
from .syntax import Statement, end_of_file, short
from .types import (GRID_FIELDS, LAYER_FIELDS, LAYER_SETTINGS, MAX_BATCHES, MAX_WEIGHT_BUDGET, PENALTIES, RECIPE,
                    RECIPE_SETTING, SCALINGS, SYMMETRIES, TOP_SETTINGS, TRAININGS, LayerSpec, NetworkSpec, Position)
from .values import INVALID, ValueChecker, one_of, plural, suggest

_WIDTH_LIMIT = " (annc's limit on the width of a layer)"


def _at(st: Statement) -> Position:
    return Position(st.line, st.column)


AUTO = object()  # 'penalty l0 auto' before the layers are known


def lexicographic_weight(penalty: str, inputs: int, hidden: tuple, output: LayerSpec) -> float:
    """The weight of ``penalty l0 auto`` / ``penalty l1 auto``: ``1 / (1 + P_max)`` with
    ``P_max`` the largest value the unweighted penalty can take (l0: the number of weights;
    l1: the sum of each weight's largest ``|w|`` in its box).  Then the whole penalty is
    below one unit of loss: with the ``errors`` loss (integer) the optimum classifies as many
    samples as possible and, among those networks, has the fewest non-zero weights (l0):
    the lexicographic objective of BeMi (Bernardelli et al.) in one MIP."""
    total, fan_in = 0.0, inputs
    for layer in (*hidden, output):
        lo, hi = layer.weight_bounds
        per = PENALTY[penalty].per_weight(lo, hi)  # l0: 1; l1: max(|lo|, |hi|) (annc.core.penalties)
        total += fan_in * layer.units * per
        fan_in = layer.units
    return 1.0 / (1.0 + total)


@dataclass
class _Layer:
    """A layer as written: its ``LayerSpec`` fields set by its own ``{ }`` block."""

    units: int
    activation: str
    fields: dict = field(default_factory=dict)  # weight_bounds, weight_grid, bias_bounds, ..., big_m
    positions: dict = field(default_factory=dict)


def check(statements: tuple[Statement, ...], text: str, filename: str, across: bool = True
          ) -> tuple[NetworkSpec | None, list[Diagnostic]]:
    """The spec of ``statements`` (parsed from ``text``), or None and every problem.
    ``across=False`` (some statements did not parse): each statement is checked on its
    own, not against the others (a missing setting, 'P' without a ReLU layer, ...), and no
    spec is built."""
    checker = _Checker(text, filename)
    spec = checker.check(statements, across)
    return spec, checker.diagnostics


class _Checker(ValueChecker):
    """Walks the statements, turning them into settings and collecting diagnostics."""

    # -- settings: each returns its value, or INVALID (reported) ---------------

    def layer_setting(self, st: Statement):
        """The ``LayerSpec`` fields set by ``weights``, ``bias`` (with their grid) or ``M``
        (top level or in a layer's block), or INVALID."""
        if st.key == "M":
            value = self.big_m(st)
            return value if value is INVALID else {LAYER_FIELDS["M"]: value}
        value = self.grid_bounds(st)
        if value is INVALID:
            return value
        return {LAYER_FIELDS[st.key]: value[0], GRID_FIELDS[st.key]: value[1]}

    def grid_bounds(self, st: Statement):
        """``[lo, hi]`` -> ((lo, hi), None); ``[lo, hi] grid K`` -> ((lo, hi), K), K an
        integer in 2..MAX_GRID and lo < hi."""
        values = st.values
        if len(values) <= 1:
            bounds = self.bounds(st)
            return bounds if bounds is INVALID else (bounds, None)
        takes = f"'{st.key}' takes an interval [lo, hi], optionally followed by 'grid K'"
        word = values[1]
        if word.kind != "word" or word.value != "grid":
            hint = suggest(word.value, ["grid"]) if word.kind == "word" else None
            self.error(word, f"{takes}, got {word.shown}" + (" (did you mean 'grid'?)" if hint else ""))
            return INVALID
        if len(values) != 3:
            at = values[3] if len(values) > 3 else word
            self.error(at, f"'grid' takes one integer, the number of values K (e.g. "
                       f"'{st.key} [-1, 1] grid 9'), got {plural(len(values) - 2)}")
            return INVALID
        bounds = self.interval(st, values[0])
        K = self.integer(st, values[2], 2, "grid", " (the number of values, both ends included)",
                         maximum=MAX_GRID, limit_why=" (annc's limit on the values of a grid)")
        if bounds is INVALID or K is INVALID:
            return INVALID
        if not bounds[0] < bounds[1]:
            self.error(word, f"a grid needs lo < hi, got {values[0].shown}")
            return INVALID
        return bounds, K

    def layer(self, st: Statement, units: int, activation: str) -> _Layer:
        layer = _Layer(units, activation, positions={"layer": _at(st)})
        seen: dict[str, Statement] = {}
        for opt in st.block or ():
            if opt.block is not None:
                self.error((opt.block_line, opt.block_column),
                           f"layer setting '{opt.key}' takes no {{ }} block")
            if opt.key not in LAYER_SETTINGS:
                self.unknown(opt, LAYER_SETTINGS, "layer setting")
                continue
            if self.duplicate(opt, seen):
                continue
            value = self.layer_setting(opt)
            if value is not INVALID:
                layer.fields.update(value)
                layer.positions[opt.key] = _at(opt)
        return layer

    def hidden(self, st: Statement) -> _Layer | None:
        takes = f"a width and an activation ({one_of(HIDDEN)})"
        if not self.count(st, 2, takes):
            self.layer(st, 1, "binary")  # still check its block
            return None
        units = self.integer(st, st.values[0], 1, "width", maximum=MAX_UNITS,
                             limit_why=_WIDTH_LIMIT)
        activation = self.word(st, st.values[1], tuple(HIDDEN), "activation")
        layer = self.layer(st, 1 if units is INVALID else units,
                           "binary" if activation is INVALID else activation)
        return None if activation is INVALID else layer  # a bad width is already reported

    def output(self, st: Statement):
        if not self.count(st, 1, "one integer (the number of classes)"):
            self.layer(st, 2, "linear")  # still check its block
            return INVALID
        units = self.integer(st, st.values[0], 2, why=" (the number of classes)",
                             maximum=MAX_UNITS, limit_why=_WIDTH_LIMIT)
        layer = self.layer(st, 2 if units is INVALID else units, "linear")
        return INVALID if units is INVALID else layer

    def loss(self, st: Statement):
        """{"loss": name} or with its argument (:data:`annc.core.losses.LOSS`: hinge's "margin")."""
        if not st.values or len(st.values) > 2:
            takes = ", ".join(f"{k} with an optional {LOSS[k].argument.name}" for k in with_argument())
            self.error(st.values[2] if st.values else st,
                       f"'loss' takes {one_of(LOSS)} ({takes}), got {plural(len(st.values))}")
            return INVALID
        name = self.word(st, st.values[0], tuple(LOSS), "loss")
        if name is INVALID or len(st.values) == 1:
            return name if name is INVALID else {"loss": name}
        given, argument = st.values[1], LOSS[name].argument
        if argument is None:
            words = sorted({LOSS[k].argument.name for k in with_argument()})
            having = with_argument()
            self.error(given, f"'loss {name}' takes no {' or '.join(words)} (only "
                       + ", ".join(f"'loss {k}'" for k in having) + f" {'has' if len(having) == 1 else 'have'} one)")
            return INVALID
        value = getattr(self, argument.check)(given, argument.what)
        return value if value is INVALID else {"loss": name, argument.name: value}

    def penalty(self, st: Statement):
        """{"penalty": name} or with its "penalty_weight"."""
        if not st.values or len(st.values) > 2:
            self.error(st.values[2] if st.values else st,
                       f"'penalty' takes none, l1 X or l0 X, got {plural(len(st.values))}")
            return INVALID
        name = self.word(st, st.values[0], PENALTIES, "penalty")
        if name is INVALID:
            return name
        if name == "none":
            if len(st.values) == 2:
                self.error(st.values[1], "'penalty none' takes no weight")
                return INVALID
            return {"penalty": name}
        if len(st.values) == 1:
            self.error(st, f"'penalty {name}' needs a weight, e.g. 'penalty {name} 0.01' or "
                           f"'penalty {name} auto'")
            return INVALID
        if getattr(st.values[1], "text", None) == "auto":  # resolved in build(), once the layers are known
            return {"penalty": name, "penalty_weight": AUTO}
        weight = self.positive(st.values[1], f"the {name} penalty weight", zero_ok=True)
        return weight if weight is INVALID else {"penalty": name, "penalty_weight": weight}

    def unknown(self, st: Statement, choices, what: str) -> None:
        hint = suggest(st.key, choices)
        if hint:
            extra = f"did you mean '{hint}'?"
        elif what == "layer setting" and st.key in TOP_SETTINGS:
            extra = f"a layer block takes {one_of(choices)}; '{st.key}' goes at the top level"
        else:
            extra = f"expected {one_of(choices)}"
        self.error(st, f"unknown {what} '{short(st.key)}' ({extra})")

    def duplicate(self, st: Statement, seen: dict) -> bool:
        first = seen.get(st.key)
        if first is None:
            seen[st.key] = st
            return False
        self.error(st, f"duplicate setting '{st.key}' (first set at line {first.line})")
        return True

    # -- the whole spec --------------------------------------------------------

    def check(self, statements: tuple[Statement, ...], across: bool = True) -> NetworkSpec | None:
        seen: dict[str, Statement] = {}
        hidden: list[_Layer | None] = []
        got: dict[str, object] = {}
        for st in statements:
            if st.key not in TOP_SETTINGS:
                self.unknown(st, TOP_SETTINGS, "setting")
                continue
            if st.key == "hidden":
                if len(hidden) == MAX_LAYERS:
                    self.error(st, f"more than {MAX_LAYERS} hidden layers (annc's limit on the "
                               "depth of a network)")
                hidden.append(self.hidden(st))
                continue
            if self.duplicate(st, seen):
                continue
            if st.block is not None and st.key != "output":
                self.error((st.block_line, st.block_column),
                           f"'{st.key}' takes no {{ }} block (only 'hidden' and 'output' "
                           "have layer settings)")
            got[st.key] = self.setting(st)
        if not across:
            return None
        self.cross_checks(seen, hidden)
        if self.diagnostics:
            return None
        return self.build(got, hidden, {key: _at(st) for key, st in seen.items()
                                        if key != "output"})

    def setting(self, st: Statement):
        """The value of top-level setting ``st``: a ``NetworkSpec`` field dict (input,
        eps, P, loss, training, penalty, symmetry, scale), a layer value (weights, bias, M) or
        the output ``_Layer``; ``INVALID`` when wrong."""
        key = st.key
        if key == "input":  # a count, or 'auto': the data's width once its text is one-hot encoded
            if len(st.values) == 1 and st.values[0].kind == "word" and st.values[0].text == "auto":
                return {"inputs": None}
            if len(st.values) == 1 and st.values[0].kind == "word":
                self.error(st.values[0], f"'input' must be an integer, got {st.values[0].shown} (or auto: "
                                         "the data's width once its text is one-hot encoded)")
                return INVALID
            n = self.single_integer(st, 1, MAX_UNITS, _WIDTH_LIMIT)
            return n if n is INVALID else {"inputs": n}
        if key == "output":
            return self.output(st)
        if key in LAYER_SETTINGS:
            return self.layer_setting(st)
        if key == "eps":
            if not self.count(st, 1, "one number"):
                return INVALID
            eps = self.positive(st.values[0], "'eps'")
            return eps if eps is INVALID else {"eps": eps}
        if key == "P":
            p = self.single_integer(st, 1, MAX_PIECES, " (McCormick pieces per weight; the "
                                    "relaxation gap already shrinks as 1/P)")
            return p if p is INVALID else {"partitions": p}
        if key == "loss":
            return self.loss(st)
        if key == "penalty":
            return self.penalty(st)
        if key == "max_weights":
            k = self.single_integer(st, 0, MAX_WEIGHT_BUDGET, " (a bound on the count of non-zero weights)")
            return k if k is INVALID else {"max_weights": k}
        if key == "training" and st.values and st.values[0].kind == "word" and st.values[0].text == "batches":
            if not self.count(st, 2, "'batches' and the number of batches, e.g. 'training batches 4'"):
                return INVALID
            k = self.integer(st, st.values[1], 2, "batches", " (one batch is full training)", MAX_BATCHES,
                             " (each batch is a MIP)")
            return k if k is INVALID else {"training": "batches", "batches": k}
        if key in ("training", "symmetry", "scale"):
            choices = {"training": TRAININGS, "symmetry": SYMMETRIES, "scale": SCALINGS}[key]
            word = self.single_word(st, choices, key)
            return word if word is INVALID else {key: word}
        raise AssertionError(key)  # pragma: no cover

    def cross_checks(self, seen: dict, hidden: list) -> None:
        if "output" not in seen:  # 'input' may be left out: 'input auto'
            self.error(end_of_file(self.lines), "missing required setting 'output' (the number of classes, "
                       "e.g. 'output 2')")
        relu = any(layer and takes_pieces(layer.activation) for layer in hidden)  # McCormick products
        if "P" in seen and not relu and all(hidden):
            self.error(seen["P"], "'P' is only used after a ReLU layer; this net has none")
        sym = seen.get("symmetry")
        if sym and sym.values and sym.values[0].text != "none" and not hidden:
            self.error(sym.values[0], f"'symmetry {sym.values[0].text}' orders the units of hidden "
                       "layers; this net has none")
        budget, penalty = seen.get("max_weights"), seen.get("penalty")
        named = penalty.values[0].text if penalty and penalty.values else "none" if "loss" in seen else "l0"
        if budget and named != "l0":
            self.error(budget, f"'max_weights' bounds the count of the l0 penalty's non-zero weights; this spec's "
                       f"penalty is {named} (write 'penalty l0 X', e.g. 'penalty l0 0.5')")
        training = seen.get("training")
        if training and training.values and training.values[0].text == "greedy" \
                and not hidden:
            self.error(training.values[0],
                       "'training greedy' needs at least one hidden layer")

    def build(self, got: dict, hidden: list[_Layer], positions: dict) -> NetworkSpec:
        """The spec of valid settings ``got``: a layer's own block settings, else the
        top-level ones, else the ``LayerSpec`` defaults; the network's settings as written,
        else the ``NetworkSpec`` defaults."""
        shared = {name: v for key in LAYER_SETTINGS if key in got for name, v in got[key].items()}

        def make(layer: _Layer) -> LayerSpec:
            return LayerSpec(layer.units, layer.activation, **{**shared, **layer.fields},
                             positions=layer.positions)

        settings = {}
        if "loss" not in got:  # the default recipe: each field unless the spec names its setting
            settings.update({k: AUTO if v == "auto" else v for k, v in RECIPE.items()
                             if RECIPE_SETTING.get(k, k) not in got})
        for key in ("input", "eps", "P", "loss", "training", "penalty", "max_weights", "symmetry", "scale"):
            settings.update(got.get(key, {}))
        layers = tuple(make(h) for h in hidden), make(got["output"])
        settings.setdefault("inputs", None)  # no 'input': 'input auto'
        if settings.get("penalty_weight") is AUTO and settings["inputs"] is None:  # resolved with the input count
            settings.update(penalty_weight=0.0, penalty_auto=True)
        elif settings.get("penalty_weight") is AUTO:
            settings["penalty_weight"] = lexicographic_weight(settings["penalty"], settings["inputs"], *layers)
        return NetworkSpec(hidden=layers[0], output=layers[1],
                           **settings, source=self.filename, text=self.text,
                           positions=positions)
