"""The pages that show annc's output (the tutorial, the researcher's page, the README's verdict)
show what today's code prints: ``docs/gen/pages.py`` reruns their commands and compares, skipping
the lines that depend on the machine's speed and load."""
from __future__ import annotations

import importlib.util
import re

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("annc_pages", ROOT / "docs" / "gen" / "pages.py")
pages = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(pages)

EXPECTED = {"tutorial": {"tutorial-train", "tutorial-eval"}, "readme": {"readme-verdict"},
            "researchers": {"researchers-data", "researchers-compile", "researchers-gurobi", "researchers-scip",
                            "researchers-cbc"}}


@pytest.mark.parametrize("page", sorted(EXPECTED))
def test_each_page_has_its_output_blocks_filled(page):
    blocks = pages.blocks_of(pages.PAGES[page].read_text())
    assert set(blocks) == EXPECTED[page]
    assert all(b.strip() for b in blocks.values()), "run: python docs/gen/pages.py"


def test_the_verdict_blocks_open_with_the_plain_line():
    for page, name in (("tutorial", "tutorial-train"), ("readme", "readme-verdict")):
        block = pages.blocks_of(pages.PAGES[page].read_text())[name]
        first = next(line for line in block.splitlines() if line.startswith("  ") and line.strip())
        assert re.match(r"  network: \d+\.\d% on the \d+ test rows", first), (page, first)


def test_the_comparison_skips_timing_and_finds_a_change():
    shown = "summary:\n  network: x\n  wall time          9.1 s (build 1 s)\n  test accuracy      0.9\n"
    same = shown.replace("9.1 s", "30.2 s")
    other = shown.replace("0.9", "0.8")
    text = f"<!-- output: a -->\n```text\n{shown}```\n<!-- /output -->\n"
    assert pages.differences(text, {"a": same}) == []
    assert pages.differences(text, {"a": other}) and "0.8" in pages.differences(text, {"a": other})[0]
    assert pages.blocks_of(pages.fill(text, {"a": other})) == {"a": other}


@pytest.mark.slow  # the tutorial's run: --time-limit 30 on breast_cancer
def test_the_tutorial_and_the_readme_show_what_annc_prints_now():
    pytest.importorskip("sklearn", reason="the tutorial's data come from scikit-learn")
    assert pages.run(["tutorial", "readme"], check=True) == []


@pytest.mark.slow  # the researcher's page: a start search and three solvers
def test_the_researchers_page_shows_what_annc_prints_now():
    for module in ("gurobipy", "pyscipopt", "cbcbox"):
        pytest.importorskip(module, reason=f"the researcher's page runs {module}")
    assert pages.run(["researchers"], check=True) == []
