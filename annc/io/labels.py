"""Class labels: the order of a label column's classes and the lookup of a label's class.

Labels that are all integers are classes sorted numerically (``2`` before ``10``), others
strings sorted; a label names its class by its text or, for integer classes, by its value
(``+3`` and ``03`` are class ``3``).  An integer label longer than :data:`MAX_LABEL_DIGITS`
digits is refused by the reader before ``int()`` would refuse it.
"""
from __future__ import annotations

import re

import numpy as np

MAX_LABEL_DIGITS = 4000  # Python's int() refuses more than 4300 digits
INT_RE = re.compile(r"\s*[+-]?\d+\s*")


def long_integer(s: str) -> bool:
    """An integer label too long for ``int()`` (more than :data:`MAX_LABEL_DIGITS` digits)."""
    return len(s.strip().lstrip("+-")) > MAX_LABEL_DIGITS and bool(INT_RE.fullmatch(s))


def class_order(labels: list[str]) -> list:
    """Ints sorted numerically when every label is an integer, else strings sorted."""
    if all(INT_RE.fullmatch(s) for s in labels):
        return sorted({int(s) for s in labels})
    return sorted({s.strip() for s in labels})


def class_lookup(classes: list) -> dict:
    """Map label text (and integer value, for integer classes) to the class index."""
    lookup: dict = {}
    for i, c in enumerate(classes):
        lookup.setdefault(str(c).strip(), i)
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            lookup.setdefault(int(c), i)
    return lookup


def class_index(text: str, lookup: dict) -> int | None:
    """The class index of a label ``text`` (by its text, or by its integer value for integer classes); None if
    it names no class."""
    s = text.strip()
    if s in lookup:
        return lookup[s]
    if INT_RE.fullmatch(s) and not long_integer(s) and int(s) in lookup:
        return lookup[int(s)]
    return None
