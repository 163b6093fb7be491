"""One source for every threshold and share (annc.app.thresholds): the docs' table, the
``--help`` texts, the estimator's docstring and the numbers the pages state, against the
constants of the code."""
from __future__ import annotations

import re

import pytest

from conftest import ROOT
from annc.app import thresholds as th

DOCS = ROOT / "docs"


def test_the_source_reader_gives_the_imported_constants():
    """values() reads the modules' source; it gives what importing them gives."""
    import importlib
    from annc.training.modelselect.policy import DEFAULT_POLICY
    where = {"training.mip.stages": ["SEARCH_SHARE"],
             "training.search.start": ["START_BUDGET", "MIN_START_BUDGET"],
             "training.search.lns": ["BAND_ROWS", "NODE_LIMIT", "MAX_SUBMIPS"],
             "training.large.compress": ["ADVISE_ROWS", "LARGE_ROWS", "REPRESENTATIVES"],
             "training.warmstart.margin": ["WIDE", "NARROW", "NU"],
             "training.modelselect.splits": ["DEFAULT_FRACTION"]}
    v = th.values()
    for name, field in th.SELECTION.items():
        assert v[name] == getattr(DEFAULT_POLICY, field), name
    for module, names in where.items():
        m = importlib.import_module(f"annc.{module}")
        for name in names:
            assert v[name] == getattr(m, name), (module, name)


def test_the_docs_table_is_the_generated_one():
    text = th.PAGE.read_text()
    assert th.page_block(text) == th.block(), "run: python -m annc.app.thresholds --write"


def _help(*args) -> str:
    import contextlib
    import io
    from annc.app.cli import parser
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser().parse_args([*args, "--help"])
    return " ".join(out.getvalue().split())


# what a text states, and the constant it names: (pattern with one number, constant, how the constant is written)
def _pct(x):
    return f"{100 * x:g}"


def _num(x):
    return f"{x:,g}" if isinstance(x, float) else f"{x:,}"


CLAIMS = [
    (r"(\d+)\+ distinct rows", "MIN_DISTINCT", _num),
    (r"(\d+) or more distinct rows", "MIN_DISTINCT", _num),
    (r"(\d+) distinct rows or more", "MIN_DISTINCT", _num),
    (r"at least (\d+) distinct\s+rows", "MIN_DISTINCT", _num),
    (r"distinct rows(?: or more)?,? (?:a )?`?--time-limit`? (?:of )?(\d+) s", "MIN_LIMIT", _num),
    (r"within (\d+)% of the time limit", "SELECT_SHARE", _pct),
    (r"selection takes at most (\d+)% of", "SELECT_SHARE", _pct),
    (r"selection may take (\d+)% of", "SELECT_SHARE", _pct),
    (r"at most (\d+)% of what is left", "SEARCH_SHARE", _pct),
    (r"less ([\d.]+) of a\s+validation row a fold", "RESOLUTION", _num),
    (r"(?:above|more than) ([\d,]+) training rows", "MANY_ROWS", _num),
    (r"sample of at most ([\d,]+) rows", "MAX_CV_ROWS", _num),
    (r"l0 weights ([\d., ]+\d)", "PENALTY_PATH", lambda p: ", ".join(f"{x:g}" for x in p)),
    (r"by more than ([\d.]+) standard error of their paired", "PAIRED_SE", _num),
    (r"start's search takes at most (\d+) s", "START_BUDGET", _num),
    (r"\(default (\d+)\)\s*$", "START_BUDGET", _num),
    (r"(?:above|more than) ([\d,]+) distinct (?:training )?rows", ("ADVISE_ROWS", "LARGE_ROWS"), _num),
]
VAGUE = [r"few hundred distinct rows", r"three quarters of", r"\b100\+"]  # the old, wrong words


def _check(text: str, where: str) -> int:
    v, n = th.values(), 0
    for pattern, name, fmt in CLAIMS:
        for m in re.finditer(pattern, text, re.M):
            names = (name,) if isinstance(name, str) else name
            assert m.group(1) in {fmt(v[k]) for k in names}, \
                f"{where}: '{m.group(0)}' but {' or '.join(names)} is {' or '.join(str(v[k]) for k in names)}"
            n += 1
    for pattern in VAGUE:
        assert not re.search(pattern, text), f"{where}: '{pattern}': state the number ({th.PAGE.name}'s table)"
    return n


def test_train_help_states_the_constants():
    text = _help("train")
    assert _check(text, "annc train --help") >= 3
    v = th.values()
    assert f"{_num(v['MIN_DISTINCT'])} or more distinct rows" in text and f"at most {_pct(v['SEARCH_SHARE'])}%" in text


def test_compile_help_states_the_start_budget():
    text = _help("compile")
    assert f"default {_num(th.values()['START_BUDGET'])})" in text


def test_the_estimator_docstring_states_the_constants():
    from annc.app import estimator
    text = " ".join((estimator.__doc__ + estimator.MIPNetClassifier.__doc__).split())
    assert _check(text, "annc.app.estimator") >= 3
    assert "README" not in text, "the estimator's docstring points to a README section that is gone"


USER_PAGES = ["index.md", "tutorial.md", "researchers.md", "real-data.md", "commands.md", "verification.md",
              "python-api.md", "solvers.md", "search.md", "decomposition.md", "language.md", "errors.md"]


@pytest.mark.parametrize("page", USER_PAGES)
def test_the_pages_state_the_constants(page):
    path = DOCS / page
    if not path.exists():
        pytest.fail(f"docs/{page} is in the user navigation")
    _check(" ".join(path.read_text().split()), f"docs/{page}")


def test_the_readme_states_the_constants():
    _check(" ".join((ROOT / "README.md").read_text().split()), "README.md")
