"""Syntax: ``.ann`` text -> located statements (lark), and syntax errors as messages.

The grammar (``grammar.lark``, beside this module) only knows statements
``KEY value* [{ ... }]``; :mod:`.checks` gives them meaning.  Every statement and value
keeps its line and column (lark's ``propagate_positions``), so that every later message
can point at the text.  This module also makes the located :class:`~annc.core.errors.Diagnostic`
(file, line, column, the source line for the caret) that every spec message uses.

**After a syntax error** (:func:`read_statements`) parsing resumes at the next top-level
statement: after the next newline or ';' that is outside a comment and outside any
``{ }`` block (:func:`statement_starts`; lark parses from there on with the positions of
the whole text).  So what a spec with syntax errors reports, all at once:

* each top-level statement with a syntax error, once, at its first error (a second error
  in the same statement shows once the first is fixed);
* every statement that parses, checked on its own as usual (its values, its block);
* not the checks across statements (a missing 'input' or 'output', 'P' without a ReLU
  layer, 'symmetry' or 'training greedy' without a hidden layer): the statement that
  does not parse may be the one they look for, so they wait until the spec parses.

Not recovered: an unclosed '{' takes the rest of the file into its block, so its error
(at the end of the file) is the last one reported and the statements after the '{' are
not checked.  After :data:`MAX_SYNTAX_ERRORS` syntax errors the rest is not read.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import lark
from lark.utils import TextSlice

from ...core.errors import Diagnostic

MAX_SPEC_CHARS = 1_000_000  # a spec is a dozen lines; this bounds the parse to a second or so
MAX_INT_DIGITS = 4000  # Python's int() refuses more than 4300 digits; any such value is too large
MAX_BLOCK_DEPTH = 2  # a layer's block, and (an error) a block inside it: nothing deeper is read
MAX_SYNTAX_ERRORS = 100  # then the rest of a spec is not read (each resumed parse counts its lines again)

_INT_RE = re.compile(r"[+-]?\d+")


# ----------------------------------------------------------------------------- statements

@dataclass(frozen=True)
class Value:
    """One value of a statement with its position (1-based line and column)."""

    kind: str  # "int" | "float" | "word" | "interval"
    text: str
    value: object  # int | float | str | (lo, hi)
    line: int
    column: int
    lo: "Value | None" = None  # the bounds of an interval, for their positions
    hi: "Value | None" = None

    @property
    def shown(self) -> str:
        """The value as quoted in a message: 'word', 5.5 or interval [0, 1]."""
        if self.kind == "word":
            return f"'{short(self.text)}'"
        return f"interval {short(self.text)}" if self.kind == "interval" else short(self.text)


@dataclass(frozen=True)
class Statement:
    """``KEY value* [{ statements }]`` at ``line``, ``column`` (of its key)."""

    key: str
    line: int
    column: int
    values: tuple[Value, ...]
    block: "tuple[Statement, ...] | None"  # None: no { } block
    block_line: int = 0
    block_column: int = 0


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    grammar = (Path(__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", propagate_positions=True,
                     maybe_placeholders=True)


def parse_statements(text: str, start: int = 0, end: int | None = None) -> tuple[Statement, ...]:
    """The top-level statements of ``text[start:end]`` (``start`` where a statement may
    begin), located in the whole text; raises ``lark.UnexpectedInput`` on a syntax error
    (:func:`syntax_diagnostic` turns it into a message)."""
    part = text if start == 0 and end is None else TextSlice(text, start, len(text) if end is None else end)
    return _statements(_parser().parse(part).children)


_BOUNDARY = re.compile(r"#[^\n]*|[{}\n;]")  # a comment (skipped whole), a brace or a separator


def statement_starts(text: str) -> list[int]:
    """The offsets where a top-level statement of ``text`` may begin: 0, and just after
    every newline or ';' outside comments and ``{ }`` blocks (a stray '}' closes nothing)."""
    starts, depth = [0], 0
    for m in _BOUNDARY.finditer(text):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c in "\n;" and depth == 0:
            starts.append(m.end())
    return starts


def read_statements(text: str, filename: str) -> tuple[tuple[Statement, ...], list[Diagnostic]]:
    """The top-level statements of ``text`` that parse, and a syntax diagnostic for each
    one that does not (at its first error; the module docstring says what is resumed)."""
    statements, problems, start, starts = [], [], 0, None
    while True:
        try:
            return (*statements, *parse_statements(text, start)), problems
        except lark.UnexpectedInput as err:
            problems.append(syntax_diagnostic(err, text, filename, start))
            starts = starts or statement_starts(text)
            after = bisect.bisect_right(starts, err.pos_in_stream)  # starts[after - 1] <= error < starts[after]
            statements += parse_statements(text, start, starts[after - 1])  # the statements before it parse
            if after == len(starts) or len(problems) == MAX_SYNTAX_ERRORS:
                return tuple(statements), problems
            start = starts[after]


def as_float(x) -> float:
    """``float(x)``, or +-inf for an int too large for a double."""
    try:
        return float(x)
    except OverflowError:
        return -math.inf if x < 0 else math.inf


def short(text: str, keep: int = 12) -> str:
    """A literal as quoted in a message: long ones abbreviated, with their length."""
    if len(text) <= 2 * keep + 3:
        return text
    return f"{text[:keep]}...{text[-keep:]} ({len(text)} characters)"


def _number(tok: lark.Token) -> Value:
    """An int or float literal; an integer of more than :data:`MAX_INT_DIGITS` digits
    (which ``int()`` may refuse) is kept as +-inf, refused later as too large."""
    text = str(tok)
    if _INT_RE.fullmatch(text):
        if len(text.lstrip("+-")) > MAX_INT_DIGITS:
            return Value("int", text, -math.inf if text.startswith("-") else math.inf,
                         tok.line, tok.column)
        return Value("int", text, int(text), tok.line, tok.column)
    return Value("float", text, float(text), tok.line, tok.column)


def _value(node) -> Value:
    if isinstance(node, lark.Tree):  # interval: [ lo , hi ]
        lbr, lo_tok, _comma, hi_tok, _rbr = node.children
        lo, hi = _number(lo_tok), _number(hi_tok)
        text = f"[{lo.text}, {hi.text}]"
        return Value("interval", text, (as_float(lo.value), as_float(hi.value)),
                     lbr.line, lbr.column, lo, hi)
    if node.type == "NUMBER":
        return _number(node)
    return Value("word", str(node), str(node), node.line, node.column)


def _statements(children, depth: int = 0) -> tuple[Statement, ...]:
    return tuple(_statement(c, depth) for c in children if isinstance(c, lark.Tree)
                 and c.data == "statement")


def _statement(tree: lark.Tree, depth: int = 0) -> Statement:
    """A statement at block depth ``depth`` (0: top level).  A block at depth
    :data:`MAX_BLOCK_DEPTH` or more is kept empty: one inside a layer's block is already
    an error, and not reading its contents bounds the recursion however deep they nest."""
    key, *rest = tree.children
    block = rest.pop() if rest else None  # the optional block is always last
    values = tuple(_value(v) for v in rest)
    if block is None:
        return Statement(str(key), key.line, key.column, values, None)
    brace = block.children[0]
    inner = _statements(block.children, depth + 1) if depth + 1 < MAX_BLOCK_DEPTH else ()
    return Statement(str(key), key.line, key.column, values, inner, brace.line, brace.column)


# ----------------------------------------------------------------------------- located messages

_ONE_COLUMN = str.maketrans({c: " " for c in "\t\f\v\r"})


def source_lines(text: str) -> list[str]:
    """The lines of ``text`` as lark counts them: split at ``\\n`` only (``splitlines``
    would also split at form feeds, ``\\r`` and others and shift every later line)."""
    return text.split("\n")


def diagnostic(filename: str, lines: list[str], line: int, column: int,
               message: str) -> Diagnostic:
    """``message`` at ``line``, ``column`` of ``filename``, showing that line of ``lines``."""
    source = lines[line - 1] if 1 <= line <= len(lines) else ""
    # Tabs, form feeds, vertical tabs and lone carriage returns count as one column in
    # lark; show each as one space so the caret lines up.
    return Diagnostic(filename, line, column, message, source.translate(_ONE_COLUMN))


def end_of_file(lines: list[str]) -> tuple[int, int]:
    """Position just after the last non-blank line (line 1, column 1 if none)."""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1, len(lines[i].rstrip()) + 1
    return 1, 1


def too_long(text: str, filename: str) -> Diagnostic | None:
    """A spec longer than :data:`MAX_SPEC_CHARS`, located where it passes the limit."""
    if len(text) <= MAX_SPEC_CHARS:
        return None
    line = text.count("\n", 0, MAX_SPEC_CHARS) + 1
    column = MAX_SPEC_CHARS - text.rfind("\n", 0, MAX_SPEC_CHARS)
    return diagnostic(filename, source_lines(text), line, column,
                      f"the spec is {len(text):,} characters long; annc reads specs of up to "
                      f"{MAX_SPEC_CHARS:,} (a spec is a few settings)")


def undecodable(raw: bytes, err: UnicodeDecodeError, filename: str) -> Diagnostic:
    """Where a spec stops being UTF-8: the line and column (in characters) of the first
    bad byte, with the line shown (bad bytes as U+FFFD, one column each)."""
    line_start = raw.rfind(b"\n", 0, err.start) + 1
    line = raw.count(b"\n", 0, err.start) + 1
    column = len(raw[line_start:err.start].decode("utf-8", "replace")) + 1
    end = raw.find(b"\n", err.start)
    source = raw[line_start:end if end >= 0 else len(raw)].decode("utf-8", "replace")
    return diagnostic(filename, [""] * (line - 1) + [source], line, column,
                      f"the spec is not UTF-8 text: byte 0x{raw[err.start]:02x} cannot be "
                      "decoded (save the file as UTF-8)")


# ----------------------------------------------------------------------------- syntax errors

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


def _open_braces(text: str, before: int | None = None, start: int = 0) -> list[tuple[int, int]]:
    """Positions of the '{' opened after offset ``start`` and still open at offset
    ``before`` (default: end of text)."""
    stack = []
    try:
        for tok in _parser().lex(TextSlice(text, start, len(text))):
            if before is not None and tok.start_pos >= before:
                break
            if tok.type == "LBRACE":
                stack.append((tok.line, tok.column))
            elif tok.type == "RBRACE" and stack:
                stack.pop()
    except lark.UnexpectedCharacters:
        pass  # stop at the bad character; the braces seen so far are what counts
    return stack


def syntax_diagnostic(err: lark.UnexpectedInput, text: str, filename: str, start: int = 0) -> Diagnostic:
    """The message for lark's syntax error ``err`` in ``text`` parsed from offset ``start``."""
    lines = source_lines(text)
    line, column = err.line, err.column
    # LALR's expected set may include '}' at top level; drop it there.
    inside_block = bool(_open_braces(text, err.pos_in_stream, start))
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
            line, column = end_of_file(lines)
            opened = _open_braces(text, start=start)
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
        line, column = end_of_file(lines)
    return diagnostic(filename, lines, line, column, message)
