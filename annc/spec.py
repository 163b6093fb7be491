"""Network specs: the ``.ann`` DSL parsed (lark) and validated into a :class:`NetworkSpec`.

The grammar (``grammar.lark``) only knows statements ``KEY value* [{ ... }]``; this
module gives them meaning.  Validation walks the tree with token positions and
collects *every* problem before raising one :class:`~annc.errors.SpecError`.

Public API: :func:`parse_spec`, :func:`load_spec`, :func:`format_spec`.
"""
from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import lark

from .errors import Diagnostic, SpecError, UsageError
from .inputs import read_bytes
from .limits import LARGEST, MAX_LAYERS, MAX_PIECES, MAX_UNITS


@dataclass(frozen=True)
class LayerSpec:
    """One layer: ``units`` outputs, its activation and the boxes of its parameters.

    ``big_m`` is ``None`` for automatic (tightest valid) big-M values, or a number
    the user chose for every big-M row of this layer.
    """

    units: int
    activation: str  # "binary" | "relu" for hidden layers, "linear" for the output layer
    weight_bounds: tuple[float, float] = (-1.0, 1.0)
    bias_bounds: tuple[float, float] = (-1.0, 1.0)
    big_m: float | None = None


@dataclass(frozen=True)
class NetworkSpec:
    inputs: int
    hidden: tuple[LayerSpec, ...]
    output: LayerSpec  # units = number of classes, activation "linear"
    eps: float = 0.01
    partitions: int = 10  # P, McCormick pieces (only used after a ReLU layer)
    loss: str = "nll"  # "nll" | "errors" | "hinge"
    margin: float = 1.0  # hinge margin
    training: str = "full"  # "full" | "greedy"
    penalty: str = "none"  # "none" | "l1" | "l0"
    penalty_weight: float = 0.0
    symmetry: str = "none"  # "none" | "bias" | "count": order of the units of each hidden layer
    source: str = "<spec>"  # file name the spec came from
    text: str = field(default="", compare=False, repr=False)  # its source text

    @property
    def layers(self) -> tuple[LayerSpec, ...]:
        """Hidden layers then the output layer."""
        return self.hidden + (self.output,)

    @property
    def classes(self) -> int:
        return self.output.units


# ---------------------------------------------------------------------------
# Settings and their defaults
# ---------------------------------------------------------------------------

TOP_SETTINGS = ("input", "hidden", "output", "weights", "bias", "eps", "M", "P",
                "loss", "training", "penalty", "symmetry")
LAYER_SETTINGS = ("weights", "bias", "M")
HIDDEN_ACTIVATIONS = ("binary", "relu")
LOSSES = ("nll", "errors", "hinge")
TRAININGS = ("full", "greedy")
PENALTIES = ("none", "l1", "l0")
SYMMETRIES = ("none", "bias", "count")
DEFAULT_BOUNDS = (-1.0, 1.0)

_INT_RE = re.compile(r"[+-]?\d+")
MAX_SPEC_CHARS = 1_000_000  # a spec is a dozen lines; this bounds the parse to a second or so
MAX_INT_DIGITS = 4000  # Python's int() refuses more than 4300 digits; any such value is too large
MAX_BLOCK_DEPTH = 2  # a layer's block, and (an error) a block inside it: nothing deeper is read


# ---------------------------------------------------------------------------
# Parse tree -> located statements
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Value:
    """One value of a statement with its position (1-based line and column)."""

    kind: str  # "int" | "float" | "word" | "interval"
    text: str
    value: object  # int | float | str | (lo, hi)
    line: int
    column: int
    lo: "_Value | None" = None  # the bounds of an interval, for their positions
    hi: "_Value | None" = None

    @property
    def shown(self) -> str:
        """The value as quoted in a message: 'word', 5.5 or interval [0, 1]."""
        if self.kind == "word":
            return f"'{_short(self.text)}'"
        return f"interval {_short(self.text)}" if self.kind == "interval" else _short(self.text)


@dataclass(frozen=True)
class _Statement:
    key: str
    line: int
    column: int
    values: tuple[_Value, ...]
    block: "tuple[_Statement, ...] | None"  # None: no { } block
    block_line: int = 0
    block_column: int = 0


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = (Path(__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", propagate_positions=True,
                     maybe_placeholders=True)


def _number(tok: lark.Token) -> _Value:
    """An int or float literal; an integer of more than :data:`MAX_INT_DIGITS` digits
    (which ``int()`` may refuse) is kept as +-inf, refused later as too large."""
    text = str(tok)
    if _INT_RE.fullmatch(text):
        if len(text.lstrip("+-")) > MAX_INT_DIGITS:
            return _Value("int", text, -math.inf if text.startswith("-") else math.inf,
                          tok.line, tok.column)
        return _Value("int", text, int(text), tok.line, tok.column)
    return _Value("float", text, float(text), tok.line, tok.column)


def _as_float(x) -> float:
    """``float(x)``, or +-inf for an int too large for a double."""
    try:
        return float(x)
    except OverflowError:
        return -math.inf if x < 0 else math.inf


def _short(text: str, keep: int = 12) -> str:
    """A literal as quoted in a message: long ones abbreviated, with their length."""
    if len(text) <= 2 * keep + 3:
        return text
    return f"{text[:keep]}...{text[-keep:]} ({len(text)} characters)"


def _value(node) -> _Value:
    if isinstance(node, lark.Tree):  # interval: [ lo , hi ]
        lbr, lo_tok, _comma, hi_tok, _rbr = node.children
        lo, hi = _number(lo_tok), _number(hi_tok)
        text = f"[{lo.text}, {hi.text}]"
        return _Value("interval", text, (_as_float(lo.value), _as_float(hi.value)),
                      lbr.line, lbr.column, lo, hi)
    if node.type == "NUMBER":
        return _number(node)
    return _Value("word", str(node), str(node), node.line, node.column)


def _statements(children, depth: int = 0) -> tuple[_Statement, ...]:
    return tuple(_statement(c, depth) for c in children if isinstance(c, lark.Tree)
                 and c.data == "statement")


def _statement(tree: lark.Tree, depth: int = 0) -> _Statement:
    """A statement at block depth ``depth`` (0: top level).  A block at depth
    :data:`MAX_BLOCK_DEPTH` or more is kept empty: one inside a layer's block is already
    an error, and not reading its contents bounds the recursion however deep they nest."""
    key, *rest = tree.children
    block = rest.pop() if rest else None  # the optional block is always last
    values = tuple(_value(v) for v in rest)
    if block is None:
        return _Statement(str(key), key.line, key.column, values, None)
    brace = block.children[0]
    inner = _statements(block.children, depth + 1) if depth + 1 < MAX_BLOCK_DEPTH else ()
    return _Statement(str(key), key.line, key.column, values, inner, brace.line, brace.column)


# ---------------------------------------------------------------------------
# Syntax errors -> human messages
# ---------------------------------------------------------------------------

_TOKEN_WORDS = {"LBRACE": "'{'", "RBRACE": "'}'", "LBRACKET": "'['",
                "RBRACKET": "']'", "COMMA": "','", "_SEP": "end of line",
                "$END": "end of file", "NUMBER": "a number", "NAME": "a setting name"}


def _describe_token(tok: lark.Token) -> str:
    if tok.type == "$END":
        return "end of file"
    if tok.type == "_SEP":
        return "end of line" if tok == "\n" else "';'"
    if tok.type == "NUMBER":
        return f"number {tok}"
    if tok.type == "NAME":
        return f"word '{tok}'"
    return f"'{tok}'"


def _describe_expected(expected: set[str]) -> str:
    expected = set(expected)
    phrases = []
    if {"NAME", "NUMBER"} <= expected:  # a value position
        phrases.append("a value")
        expected -= {"NAME", "NUMBER", "LBRACKET", "LBRACE"}
    if "_SEP" in expected:
        expected.discard("$END")
    order = ["NAME", "NUMBER", "LBRACKET", "COMMA", "RBRACKET", "LBRACE", "RBRACE",
             "_SEP", "$END"]
    phrases += [_TOKEN_WORDS[t] for t in order if t in expected]
    if not phrases:
        return ""
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _end_of_file(lines: list[str]) -> tuple[int, int]:
    """Position just after the last non-blank line (line 1, column 1 if none)."""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1, len(lines[i].rstrip()) + 1
    return 1, 1


def _open_braces(text: str, before: int | None = None) -> list[tuple[int, int]]:
    """Positions of the '{' still open at offset ``before`` (default: end of text)."""
    stack = []
    try:
        for tok in _parser().lex(text):
            if before is not None and tok.start_pos >= before:
                break
            if tok.type == "LBRACE":
                stack.append((tok.line, tok.column))
            elif tok.type == "RBRACE" and stack:
                stack.pop()
    except lark.UnexpectedCharacters:
        pass  # stop at the bad character; the braces seen so far are what counts
    return stack


def _syntax_diagnostic(err: lark.UnexpectedInput, text: str, lines: list[str],
                       filename: str) -> Diagnostic:
    line, column = err.line, err.column
    # LALR's expected set may include '}' at top level; drop it there.
    inside_block = bool(_open_braces(text, err.pos_in_stream))
    if isinstance(err, lark.UnexpectedCharacters):
        allowed = set(err.allowed) if inside_block else set(err.allowed) - {"RBRACE"}
        message = f"unexpected character {err.char!r}"
        hint = _describe_expected(allowed)
        if hint:
            message += f", expected {hint}"
    elif isinstance(err, lark.UnexpectedToken):
        tok = err.token
        expected = set(err.expected)
        if not inside_block:
            expected.discard("RBRACE")
        if tok.type == "$END":
            line, column = _end_of_file(lines)
            opened = _open_braces(text)
            if opened:
                opened = opened[-1]
                message = (f"unexpected end of file: missing '}}' for the '{{' at "
                           f"line {opened[0]}, column {opened[1]}")
            else:
                message = f"unexpected end of file, expected {_describe_expected(expected)}"
        elif tok.type == "RBRACE" and not inside_block:
            message = "unexpected '}' (no '{' is open)"
        elif tok.type == "LBRACE" and not lines[tok.line - 1][:tok.column - 1].strip():
            message = ("unexpected '{' at the start of a line (a layer block must open "
                       "on the same line as its 'hidden' or 'output')")
        elif tok.type == "_SEP" and tok == "\n":
            line, column = tok.line, len(lines[tok.line - 1].rstrip()) + 1
            message = f"unexpected end of line, expected {_describe_expected(expected)}"
        else:
            message = f"unexpected {_describe_token(tok)}"
            hint = _describe_expected(expected)
            if hint:
                message += f", expected {hint}"
    else:  # pragma: no cover - other lark errors (UnexpectedEOF is not raised by LALR)
        message = "syntax error"
        line, column = _end_of_file(lines)
    return _diagnostic(filename, lines, line, column, message)


def _diagnostic(filename: str, lines: list[str], line: int, column: int,
                message: str) -> Diagnostic:
    source = lines[line - 1] if 1 <= line <= len(lines) else ""
    # Tabs, form feeds, vertical tabs and lone carriage returns count as one column in
    # lark; show each as one space so the caret lines up.
    return Diagnostic(filename, line, column, message, source.translate(_ONE_COLUMN))


_ONE_COLUMN = str.maketrans({c: " " for c in "\t\f\v\r"})


def _lines(text: str) -> list[str]:
    """The lines of ``text`` as lark counts them: split at ``\\n`` only (``splitlines``
    would also split at form feeds, ``\\r`` and others and shift every later line)."""
    return text.split("\n")


# ---------------------------------------------------------------------------
# Validation: statements -> NetworkSpec, collecting every problem
# ---------------------------------------------------------------------------

def _suggest(word: str, choices) -> str | None:
    for choice in choices:
        if choice.lower() == word.lower():
            return choice
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def _one_of(choices) -> str:
    choices = list(choices)
    return ", ".join(choices[:-1]) + " or " + choices[-1]


def _plural(n: int, what: str = "value") -> str:
    return f"no {what}" if n == 0 else f"{n} {what}{'s' if n != 1 else ''}"


def _fmt(x: float) -> str:
    """Shortest text for a number that parses back to the same float."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


_WIDTH_LIMIT = " (annc's limit on the width of a layer)"


@dataclass
class _Layer:
    """A layer as written, before the global defaults are applied."""

    units: int
    activation: str
    weights: tuple[float, float] | None = None
    bias: tuple[float, float] | None = None
    big_m: object = "unset"  # "unset" | None (auto) | float


class _Checker:
    """Walks the statements, turning them into settings and collecting diagnostics."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.lines = _lines(text)
        self.diagnostics: list[Diagnostic] = []

    def error(self, at, message: str) -> None:
        """Record an error at ``at`` (a _Value or _Statement, or a (line, column))."""
        line, column = at if isinstance(at, tuple) else (at.line, at.column)
        self.diagnostics.append(_diagnostic(self.filename, self.lines, line, column, message))

    # -- single values -------------------------------------------------------

    def count(self, st: _Statement, n: int, takes: str) -> bool:
        """Check ``st`` has exactly ``n`` values; point at the first extra one."""
        got = len(st.values)
        if got == n:
            return True
        at = st.values[n] if got > n else st
        self.error(at, f"'{st.key}' takes {takes}, got {_plural(got)}")
        return False

    def finite(self, v: _Value) -> bool:
        """Every number of ``v`` is below :data:`~annc.limits.LARGEST` in magnitude (it
        becomes a coefficient or bound of the model; a double overflows past 1.8e308)."""
        for part in (v.lo, v.hi) if v.kind == "interval" else (v,):
            x = abs(_as_float(part.value))
            if not math.isfinite(x):
                self.error(part, f"number {_short(part.text)} is too large")
                return False
            if x >= LARGEST:
                self.error(part, f"number {_short(part.text)} is too large: every number of "
                           f"the model stays below {LARGEST:g} (solvers refuse larger values "
                           "or read them as infinite)")
                return False
        return True

    def integer(self, st: _Statement, v: _Value, minimum: int, what: str = "",
                why: str = "", maximum: int | None = None,
                limit_why: str = "") -> int | None:
        """An integer literal in ``[minimum, maximum]``; ``what`` names it ("width"),
        ``why`` explains the minimum and ``limit_why`` the maximum."""
        name = f"'{st.key}' {what}".rstrip()
        if v.kind != "int":
            self.error(v, f"{name} must be an integer, got {v.shown}")
            return None
        if v.value < minimum:
            self.error(v, f"{name} must be at least {minimum}{why}, got {v.shown}")
            return None
        if maximum is not None and v.value > maximum:
            self.error(v, f"{name} must be at most {maximum:,}{limit_why}, got {v.shown}")
            return None
        return v.value

    def positive(self, v: _Value, what: str, zero_ok: bool = False) -> float | None:
        """A finite number > 0 (>= 0 with ``zero_ok``); ``what`` names it."""
        if v.kind not in ("int", "float"):
            self.error(v, f"{what} must be a number, got {v.shown}")
            return None
        if not self.finite(v):
            return None
        if v.value < 0 or (v.value == 0 and not zero_ok):
            zero = " (0 in double precision)" if v.value == 0 and v.kind == "float" else ""
            self.error(v, f"{what} must be {'>= 0' if zero_ok else '> 0'}, got {v.shown}{zero}")
            return None
        return float(v.value)

    def interval(self, st: _Statement, v: _Value) -> tuple[float, float] | None:
        if v.kind != "interval":
            self.error(v, f"'{st.key}' takes an interval [lo, hi], got {v.shown}")
            return None
        if not self.finite(v):
            return None
        lo, hi = v.value
        if lo > hi:
            self.error(v.lo, f"lower bound {v.lo.shown} is above upper bound {v.hi.shown}")
            return None
        return lo, hi

    def word(self, st: _Statement, v: _Value, choices, what: str) -> str | None:
        if v.kind == "word" and v.value in choices:
            return v.value
        if v.kind == "word":
            hint = _suggest(v.value, choices)
            extra = f"did you mean '{hint}'?" if hint else f"expected {_one_of(choices)}"
            self.error(v, f"unknown {what} {v.shown} ({extra})")
        else:
            self.error(v, f"'{st.key}' takes {_one_of(choices)}, got {v.shown}")
        return None

    # -- settings ------------------------------------------------------------

    def single_integer(self, st: _Statement, minimum: int, maximum: int,
                       limit_why: str) -> int | None:
        if not self.count(st, 1, "one integer"):
            return None
        return self.integer(st, st.values[0], minimum, maximum=maximum, limit_why=limit_why)

    def bounds(self, st: _Statement) -> tuple[float, float] | None:
        if not self.count(st, 1, "one interval [lo, hi]"):
            return None
        return self.interval(st, st.values[0])

    def big_m(self, st: _Statement):
        """``M auto`` -> None, ``M 50`` -> 50.0; "unset" when invalid."""
        if not self.count(st, 1, "'auto' or one number"):
            return "unset"
        v = st.values[0]
        if v.kind == "word":
            if v.value == "auto":
                return None
            hint = _suggest(v.value, ["auto"])
            self.error(v, f"'M' takes 'auto' or a number > 0, got {v.shown}"
                       + (" (did you mean 'auto'?)" if hint else ""))
            return "unset"
        m = self.positive(v, "'M'")
        return "unset" if m is None else m

    def layer(self, st: _Statement, units: int, activation: str) -> _Layer:
        layer = _Layer(units, activation)
        if st.block is None:
            return layer
        seen: dict[str, _Statement] = {}
        for opt in st.block:
            if opt.block is not None:
                self.error((opt.block_line, opt.block_column),
                           f"layer setting '{opt.key}' takes no {{ }} block")
            if opt.key not in LAYER_SETTINGS:
                self.unknown(opt, LAYER_SETTINGS, "layer setting")
                continue
            if self.duplicate(opt, seen):
                continue
            if opt.key == "weights":
                layer.weights = self.bounds(opt)
            elif opt.key == "bias":
                layer.bias = self.bounds(opt)
            else:
                layer.big_m = self.big_m(opt)
        return layer

    def hidden(self, st: _Statement) -> _Layer | None:
        takes = f"a width and an activation ({_one_of(HIDDEN_ACTIVATIONS)})"
        if not self.count(st, 2, takes):
            self.layer(st, 1, "binary")  # still check its block
            return None
        units = self.integer(st, st.values[0], 1, "width", maximum=MAX_UNITS,
                             limit_why=_WIDTH_LIMIT)
        activation = self.word(st, st.values[1], HIDDEN_ACTIVATIONS, "activation")
        layer = self.layer(st, units or 1, activation or "binary")
        return layer if activation is not None else None  # a bad width is already reported

    def output(self, st: _Statement) -> _Layer | None:
        if not self.count(st, 1, "one integer (the number of classes)"):
            self.layer(st, 2, "linear")  # still check its block
            return None
        units = self.integer(st, st.values[0], 2, why=" (the number of classes)",
                             maximum=MAX_UNITS, limit_why=_WIDTH_LIMIT)
        layer = self.layer(st, units or 2, "linear")
        return layer if units is not None else None

    def loss(self, st: _Statement):
        """(loss, margin), or None when invalid."""
        if not st.values or len(st.values) > 2:
            self.error(st.values[2] if st.values else st,
                       f"'loss' takes {_one_of(LOSSES)} (hinge with an optional margin), "
                       f"got {_plural(len(st.values))}")
            return None
        name = self.word(st, st.values[0], LOSSES, "loss")
        if name is None:
            return None
        if len(st.values) == 1:
            return name, 1.0
        margin = st.values[1]
        if name != "hinge":
            self.error(margin, f"'loss {name}' takes no margin (only 'loss hinge' has one)")
            return None
        value = self.positive(margin, "the hinge margin")
        return None if value is None else (name, value)

    def penalty(self, st: _Statement):
        """(penalty, weight), or None when invalid."""
        if not st.values or len(st.values) > 2:
            self.error(st.values[2] if st.values else st,
                       f"'penalty' takes none, l1 X or l0 X, got {_plural(len(st.values))}")
            return None
        name = self.word(st, st.values[0], PENALTIES, "penalty")
        if name is None:
            return None
        if name == "none":
            if len(st.values) == 2:
                self.error(st.values[1], "'penalty none' takes no weight")
                return None
            return name, 0.0
        if len(st.values) == 1:
            self.error(st, f"'penalty {name}' needs a weight, e.g. 'penalty {name} 0.01'")
            return None
        weight = self.positive(st.values[1], f"the {name} penalty weight", zero_ok=True)
        return None if weight is None else (name, weight)

    def unknown(self, st: _Statement, choices, what: str) -> None:
        hint = _suggest(st.key, choices)
        if hint:
            extra = f"did you mean '{hint}'?"
        elif what == "layer setting" and st.key in TOP_SETTINGS:
            extra = f"a layer block takes {_one_of(choices)}; '{st.key}' goes at the top level"
        else:
            extra = f"expected {_one_of(choices)}"
        self.error(st, f"unknown {what} '{_short(st.key)}' ({extra})")

    def duplicate(self, st: _Statement, seen: dict) -> bool:
        first = seen.get(st.key)
        if first is None:
            seen[st.key] = st
            return False
        self.error(st, f"duplicate setting '{st.key}' (first set at line {first.line})")
        return True

    # -- the whole spec --------------------------------------------------------

    def check(self, statements: tuple[_Statement, ...]) -> NetworkSpec | None:
        seen: dict[str, _Statement] = {}
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
        self.cross_checks(seen, hidden)
        if self.diagnostics:
            return None
        return self.build(got, hidden)

    def setting(self, st: _Statement):
        key = st.key
        if key == "input":
            return self.single_integer(st, 1, MAX_UNITS, _WIDTH_LIMIT)
        if key == "output":
            return self.output(st)
        if key in ("weights", "bias"):
            return self.bounds(st)
        if key == "M":
            return self.big_m(st)
        if key == "eps":
            return self.count(st, 1, "one number") and \
                self.positive(st.values[0], "'eps'")
        if key == "P":
            return self.single_integer(st, 1, MAX_PIECES, " (McCormick pieces per weight; the "
                                       "relaxation gap already shrinks as 1/P)")
        if key == "loss":
            return self.loss(st)
        if key == "penalty":
            return self.penalty(st)
        if key == "training":
            return self.count(st, 1, _one_of(TRAININGS)) and \
                self.word(st, st.values[0], TRAININGS, "training")
        if key == "symmetry":
            return self.count(st, 1, _one_of(SYMMETRIES)) and \
                self.word(st, st.values[0], SYMMETRIES, "symmetry")
        raise AssertionError(key)  # pragma: no cover

    def cross_checks(self, seen: dict, hidden: list) -> None:
        for key in ("input", "output"):
            if key not in seen:
                where = (1, 1) if key == "input" else _end_of_file(self.lines)
                what = "the number of input features" if key == "input" \
                    else "the number of classes"
                self.error(where, f"missing required setting '{key}' ({what}, "
                           f"e.g. '{key} {5 if key == 'input' else 2}')")
        relu = any(layer and layer.activation == "relu" for layer in hidden)
        if "P" in seen and not relu and all(hidden):
            self.error(seen["P"], "'P' is only used after a ReLU layer; this net has none")
        sym = seen.get("symmetry")
        if sym and sym.values and sym.values[0].text != "none" and not hidden:
            self.error(sym.values[0], f"'symmetry {sym.values[0].text}' orders the units of hidden "
                       "layers; this net has none")
        training = seen.get("training")
        if training and training.values and training.values[0].text == "greedy" \
                and not hidden:
            self.error(training.values[0],
                       "'training greedy' needs at least one hidden layer")

    def build(self, got: dict, hidden: list[_Layer]) -> NetworkSpec:
        weights = got.get("weights") or DEFAULT_BOUNDS
        bias = got.get("bias") or DEFAULT_BOUNDS
        big_m = got.get("M", None)

        def make(layer: _Layer) -> LayerSpec:
            return LayerSpec(layer.units, layer.activation,
                             tuple(map(float, layer.weights or weights)),
                             tuple(map(float, layer.bias or bias)),
                             big_m if layer.big_m == "unset" else layer.big_m)

        loss, margin = got.get("loss") or ("nll", 1.0)
        penalty, weight = got.get("penalty") or ("none", 0.0)
        return NetworkSpec(
            inputs=got["input"], hidden=tuple(make(h) for h in hidden),
            output=make(got["output"]), eps=got.get("eps") or 0.01,
            partitions=got.get("P") or 10, loss=loss, margin=margin,
            training=got.get("training") or "full", penalty=penalty,
            penalty_weight=weight, symmetry=got.get("symmetry") or "none", source=self.filename, text=self.text)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def parse_spec(text: str, filename: str = "<spec>") -> NetworkSpec:
    """Parse and validate ``.ann`` source; raises :class:`SpecError` listing all problems."""
    if not isinstance(text, str):
        raise UsageError(f"parse_spec takes the spec's text as a str, got {type(text).__name__}")
    checker = _Checker(text, filename)
    if len(text) > MAX_SPEC_CHARS:
        line = text.count("\n", 0, MAX_SPEC_CHARS) + 1
        column = MAX_SPEC_CHARS - text.rfind("\n", 0, MAX_SPEC_CHARS)
        raise SpecError([_diagnostic(filename, checker.lines, line, column,
                                     f"the spec is {len(text):,} characters long; annc reads "
                                     f"specs of up to {MAX_SPEC_CHARS:,} (a spec is a few "
                                     "settings)")])
    try:
        tree = _parser().parse(text)
    except lark.UnexpectedInput as err:
        raise SpecError([_syntax_diagnostic(err, text, checker.lines, filename)]) from None
    spec = checker.check(_statements(tree.children))
    if spec is None:
        raise SpecError(sorted(checker.diagnostics, key=lambda d: (d.line, d.column)))
    return spec


def load_spec(path) -> NetworkSpec:
    """Read and parse a ``.ann`` file (the spec keeps ``source=str(path)`` and its text)."""
    raw = read_bytes(path, "spec file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SpecError([_undecodable(raw, err, str(path))]) from None
    return parse_spec(text, str(path))


def _undecodable(raw: bytes, err: UnicodeDecodeError, filename: str) -> Diagnostic:
    """Where a spec stops being UTF-8: the line and column (in characters) of the first
    bad byte, with the line shown (bad bytes as U+FFFD, one column each)."""
    line_start = raw.rfind(b"\n", 0, err.start) + 1
    line = raw.count(b"\n", 0, err.start) + 1
    column = len(raw[line_start:err.start].decode("utf-8", "replace")) + 1
    end = raw.find(b"\n", err.start)
    source = raw[line_start:end if end >= 0 else len(raw)].decode("utf-8", "replace")
    return _diagnostic(filename, [""] * (line - 1) + [source], line, column,
                       f"the spec is not UTF-8 text: byte 0x{raw[err.start]:02x} cannot be "
                       "decoded (save the file as UTF-8)")


def locate(spec: NetworkSpec, keys, layer: int | None, message: str) -> Diagnostic:
    """A diagnostic at the first statement of ``spec.text`` that sets one of ``keys`` (tried
    in order) for ``layer`` (an index into ``spec.layers``; None for a global setting): the
    layer's own block setting or the top-level one; else at the layer's line; else 1:1."""
    lines = _lines(spec.text)
    try:
        statements = _statements(_parser().parse(spec.text).children)
    except lark.LarkError:  # a spec built in Python may carry no (or other) text
        statements = ()
    top: dict[str, _Statement] = {}
    for st in statements:
        top.setdefault(st.key, st)
    layers = [st for st in statements if st.key == "hidden"] + \
        [st for st in statements if st.key == "output"][:1]
    own = layers[layer] if layer is not None and layer < len(layers) else None
    found = [opt for key in ([keys] if isinstance(keys, str) else keys)
             for opt in ([o for o in own.block or () if o.key == key] if own else []) + [top.get(key)]
             if opt is not None]
    at = found[0] if found else own
    line, column = (at.line, at.column) if at is not None else (1, 1)
    return _diagnostic(spec.source, lines, line, column, message)


def _bounds_text(bounds) -> str:
    return f"[{_fmt(bounds[0])}, {_fmt(bounds[1])}]"


def _m_text(big_m) -> str:
    return "auto" if big_m is None else _fmt(big_m)


def _most_common(values: list, default):
    """The most frequent value; ties go to the default, then to the output layer's."""
    counts = Counter(values)
    return max(counts, key=lambda v: (counts[v], v == default, v == values[-1]))


def format_spec(spec: NetworkSpec) -> str:
    """Canonical ``.ann`` text for ``spec``; ``parse_spec`` of it gives an equal spec.

    Every setting is written explicitly.  The global ``weights``/``bias``/``M`` are
    the values most layers share (ties: the default); layers that differ get a
    ``{ }`` block.  ``P`` is only written when the net has a ReLU layer.
    """
    layers = spec.layers
    common = {
        "weights": _most_common([l.weight_bounds for l in layers], DEFAULT_BOUNDS),
        "bias": _most_common([l.bias_bounds for l in layers], DEFAULT_BOUNDS),
        "M": _most_common([l.big_m for l in layers], None),
    }

    def block(layer: LayerSpec) -> str:
        opts = []
        if layer.weight_bounds != common["weights"]:
            opts.append(f"weights {_bounds_text(layer.weight_bounds)}")
        if layer.bias_bounds != common["bias"]:
            opts.append(f"bias {_bounds_text(layer.bias_bounds)}")
        if layer.big_m != common["M"]:
            opts.append(f"M {_m_text(layer.big_m)}")
        return " { " + "; ".join(opts) + " }" if opts else ""

    out = [f"input {spec.inputs}"]
    out += [f"hidden {h.units} {h.activation}{block(h)}" for h in spec.hidden]
    out.append(f"output {spec.output.units}{block(spec.output)}")
    out.append(f"weights {_bounds_text(common['weights'])}")
    out.append(f"bias {_bounds_text(common['bias'])}")
    out.append(f"M {_m_text(common['M'])}")
    out.append(f"eps {_fmt(spec.eps)}")
    if any(h.activation == "relu" for h in spec.hidden):
        out.append(f"P {spec.partitions}")
    out.append(f"loss {spec.loss}" + (f" {_fmt(spec.margin)}" if spec.loss == "hinge" else ""))
    out.append(f"training {spec.training}")
    out.append(f"penalty {spec.penalty}"
               + (f" {_fmt(spec.penalty_weight)}" if spec.penalty != "none" else ""))
    out.append(f"symmetry {spec.symmetry}")
    return "\n".join(out) + "\n"
