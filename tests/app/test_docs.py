"""The README and the documentation site (``docs/``, ``mkdocs.yml``) against the code.

The site's own check is ``mkdocs build --strict`` (broken links and anchors, pages left out
of the nav, API references that do not resolve); these tests check what the build cannot:
the README's size and links, the extras its install commands name, the example specs, and
the tables in ``docs/`` that restate the code (import layers, exit codes).
"""
from __future__ import annotations

import re
import tomllib

import pytest

from conftest import ROOT, SPECS
from test_imports import LAYERS

README = ROOT / "README.md"
DOCS = ROOT / "docs"
WRITTEN_ELSEWHERE = {"docs/solvers-versions.md"}  # another branch writes it; the site has a stub until then


def test_readme_fits_on_a_few_screens():
    assert len(README.read_bytes()) < 12 * 1024, "the README is a front page (under 12 KB): move detail into docs/"


def _links(path):
    """Relative link targets of a Markdown file, without their #anchors."""
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
            yield target.split("#")[0]


def test_readme_links_resolve():
    missing = [t for t in _links(README) if not (ROOT / t).exists() and t not in WRITTEN_ELSEWHERE]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_readme_install_commands_name_existing_extras():
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named = re.findall(r'pip install -e "\.\[([a-z,]+)\]"', README.read_text())
    assert named, "the README's test command installs the package with its extras"
    for group in named:
        assert set(group.split(",")) <= extras, f"README names extras that pyproject.toml lacks: {group}"


@pytest.mark.parametrize("spec", sorted(p.name for p in SPECS.glob("*.ann")))
def test_example_specs_parse(spec):
    from annc.io.spec import load_spec
    load_spec(SPECS / spec)


def test_realdata_spec_is_the_default_recipe():
    """specs/realdata.ann writes no setting the recipe chooses, so it gets the recipe."""
    from annc.io.spec import load_spec
    from annc.io.spec.types import RECIPE
    s = load_spec(SPECS / "realdata.ann")
    assert (s.loss, s.penalty, s.penalty_weight, s.eps_auto) == (
        RECIPE["loss"], RECIPE["penalty"], RECIPE["penalty_weight"], RECIPE["eps_auto"])


def _table(page, first_header: str) -> list[list[str]]:
    """The rows (cells as text) of the table in ``page`` whose first header is ``first_header``."""
    rows, inside = [], False
    for line in (DOCS / page).read_text().splitlines():
        if line.startswith(f"| {first_header} |"):
            inside = True
        elif inside and line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif inside:
            break
    assert rows, f"no table headed '{first_header}' in docs/{page}"
    return rows


def test_architecture_page_states_the_checked_layers():
    """docs/architecture.md's layer table is the one tests/core/test_imports.py enforces."""
    documented = {}
    for layer, package, units, _why in _table("architecture.md", "layer"):
        names = {n.rstrip("/") for n in re.findall(r"`([^`]+)`", units)}
        documented[int(layer)] = (package.strip("`"), names)
    checked = {i: (package, units) for i, (package, units) in enumerate(LAYERS)}
    assert documented.keys() == checked.keys()
    for i, (package, units) in checked.items():
        assert documented[i][0] == package
        if package != "formulations":  # the page says "its modules"
            assert documented[i][1] == units, (package, documented[i][1] ^ units)


def test_errors_page_lists_every_exit_code():
    from annc.core import errors
    from annc.app.cli import INTERNAL_ERROR
    codes = {int(row[0]) for row in _table("errors.md", "code")}
    raised = {cls.exit_code for cls in vars(errors).values()
              if isinstance(cls, type) and issubclass(cls, errors.AnncError)}
    assert raised | {0, INTERNAL_ERROR, 130} == codes  # 130: a second Ctrl-C (annc/app/cli.py:main)


# -- sample verdicts: the docs show fields the code prints ---------------------------------------
FIELD = re.compile(r"^  (\S(?:\S| (?! ))*)  +\S")  # "  label    text": the label, up to two spaces


def _verdict_samples():
    """(page, block) for every fenced block of the docs and the README that shows a verdict
    (a ``summary:`` line, or a ``status`` field)."""
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    for page in pages:
        for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(), re.S):
            if re.search(r"^  status {5,}\S", block, re.M):
                yield page.name, block


def _fields(block: str) -> list[str]:
    """The verdict's field labels in a sample, in order (up to the verification block)."""
    block = block.split("\nverification")[0]
    return [m.group(1) for line in block.splitlines() if (m := FIELD.match(line))
            and len(line) - len(line.lstrip()) == 2]


def test_docs_sample_verdicts_show_only_fields_annc_prints():
    from annc.export.report import VERDICT_FIELDS
    samples = list(_verdict_samples())
    assert {"README.md", "tutorial.md"} <= {page for page, _ in samples}
    for page, block in samples:
        fields = _fields(block)
        unknown = [f for f in fields if f not in VERDICT_FIELDS]
        assert not unknown, f"{page}: the sample verdict shows {unknown}, which annc no longer prints"
        if "summary:" in block or "found by" in fields:  # annc train's order
            order = [VERDICT_FIELDS.index(f) for f in fields]
            assert order == sorted(order), f"{page}: the sample's fields are out of order: {fields}"
        # annc train names where its lower bound comes from: a bare "lower bound 0" is an old sample
        bound = re.search(r"^  lower bound +(.*)$", block, re.M)
        if bound and "summary:" in block:
            assert "(" in bound.group(1), f"{page}: the sample's lower bound names no source: {bound.group(0)}"


def test_a_real_verdict_prints_only_the_listed_fields(tmp_path):
    """The list the samples are checked against is what annc train prints."""
    from annc.export.report import VERDICT_FIELDS
    from conftest import run_cli
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(80, noise=0.1, seed=0)
    csv = write_csv(tmp_path / "xor.csv", X, y)
    code, out, err = run_cli("train", SPECS / "xor.ann", csv, "--test", csv,
                             "-q", "-o", tmp_path / "out")
    assert code == 0, err
    fields = _fields(out.split("summary:\n", 1)[1])
    assert set(fields) <= set(VERDICT_FIELDS), set(fields) - set(VERDICT_FIELDS)
    order = [VERDICT_FIELDS.index(f) for f in fields]
    assert order == sorted(order) and {"status", "objective", "wall time", "test accuracy"} <= set(fields)


# -- the user's pages apart from the lab ----------------------------------------------------------
LAB_PAGES = {"benchmarks-runs.md", "benchmarks-history.md", "architecture.md", "tests.md",
             "model-selection-design.md"}
USER_PAGES = {"index.md", "tutorial.md", "researchers.md", "real-data.md", "verification.md", "commands.md",
              "python-api.md", "solvers.md", "benchmarks.md"}


def _nav() -> list:
    import yaml
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]


def _pages(entry) -> set[str]:
    if isinstance(entry, str):
        return {entry}
    if isinstance(entry, list):
        return set().union(*map(_pages, entry)) if entry else set()
    return set().union(*map(_pages, entry.values()))


def test_the_lab_is_the_last_section_and_holds_the_lab_pages():
    nav = _nav()
    (title, lab), = nav[-1].items()
    assert title == "Lab", "the nav ends with the Lab section (history, runs, architecture, tests, decisions)"
    assert LAB_PAGES <= _pages(lab)
    users = _pages(nav[:-1])
    assert USER_PAGES <= users and not LAB_PAGES & users


def test_the_benchmarks_page_is_current_tables_only():
    words = len((DOCS / "benchmarks.md").read_text().split())
    assert words <= 3000, f"docs/benchmarks.md has {words} words: runs, notes and history go to the Lab pages"
