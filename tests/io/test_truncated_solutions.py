"""A truncated solution file, in any format, cut anywhere: exit 4 (README, exit codes).

The rule (:mod:`annc.io.solutions`): a line-based file whose last line has no newline was
cut mid-line; a JSON or XML document that is unfinished was cut; a file short of a count,
an end marker or a section its format always writes was cut at a line boundary.  Formats
without any of these (CBC, SCIP, Gurobi .sol, MIPLIB) cut exactly at a line boundary read
as a complete file with fewer values: that is documented, and tested here too.
"""
from __future__ import annotations

import pytest

from annc.core.errors import SolutionError, TruncatedSolutionError
from annc.io.solutions import read_solution, sniff_format

from conftest import FIXTURES, run_cli

OUTPUTS, VERSIONS = FIXTURES / "solver-outputs", FIXTURES / "solver-versions"
SKIP = {".mps", ".lp", ".py", ".md", ".glp", ".json", ".hdr", ".prt", ".asc"}  # not solutions annc reads
SOLUTIONS = sorted([p for p in OUTPUTS.iterdir() if p.is_file() and p.suffix not in SKIP]
                   + [p for p in VERSIONS.iterdir() if p.is_file() and p.suffix not in SKIP]
                   + [OUTPUTS / n for n in ("gurobi_feasible.json", "gurobi_infeasible.json",
                                            "gurobi_unbounded.json")])
SELF_DELIMITING = {"gurobi-json", "cplex"}
# formats that show a cut at a line boundary (a count, an end marker or a closing section)
LINE_CUTS_SHOW = {"highs", "glpk-raw", "glpk-out", "xpress-slx", "cplex"}


def _mid_line_cuts(text: str) -> list[int]:
    """Offsets inside the content, none just after a newline, and (for a line-based file)
    the whole file less its final newline."""
    last = len(text.rstrip())  # cut before the last non-blank character: something is lost
    cuts = {max(1, min(last - 1, int(f * last))) for f in (0.02, 0.3, 0.6, 0.97)}
    cuts = {c + 1 if text[c - 1] == "\n" else c for c in cuts}
    return sorted(c for c in cuts if c < last)


def _line_cuts(text: str) -> list[int]:
    """Line boundaries within the file's header and values: after 1 and 2 lines and at a
    quarter, half and two thirds of its lines (not between HiGHS's closing sections,
    which are optional: see annc.io.solutions.highs)."""
    ends = [i + 1 for i, ch in enumerate(text) if ch == "\n"][:-1]
    picks = {0, 1, len(ends) // 4, len(ends) // 2, 2 * len(ends) // 3}
    return sorted({ends[k] for k in picks if k < len(ends)})


def _cut(tmp_path, path, offset):
    cut = tmp_path / f"cut{offset}_{path.name}"
    cut.write_bytes(path.read_bytes()[:offset])
    return cut


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_a_file_cut_mid_line_is_truncated(tmp_path, path):
    text = path.read_text()
    fmt = sniff_format(path)
    cuts = _mid_line_cuts(text)
    if fmt not in SELF_DELIMITING:
        cuts.append(len(text.rstrip("\n")))  # only the final newline(s) lost
    for offset in cuts:
        with pytest.raises(TruncatedSolutionError, match="truncated"):
            read_solution(_cut(tmp_path, path, offset))
        with pytest.raises(TruncatedSolutionError):  # the format given: the same
            read_solution(_cut(tmp_path, path, offset), fmt)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_a_file_cut_at_a_line_boundary(tmp_path, path):
    """Truncated where the format shows it; otherwise read as a shorter file."""
    whole = read_solution(path)
    if not whole.has_values:
        pytest.skip("no values: a cut after the status loses nothing annc reads")
    text = path.read_text()
    for offset in _line_cuts(text):
        cut = _cut(tmp_path, path, offset)
        if whole.format in LINE_CUTS_SHOW:
            with pytest.raises(TruncatedSolutionError, match="truncated"):
                read_solution(cut)
            continue
        sol = read_solution(cut)
        if sol.format == "cbc" and sol.values.keys() - whole.values.keys():
            continue  # printed with its rows first (-printingOptions all), cut within them
        assert len(sol.values) < len(whole.values)


def test_truncation_is_exit_4_and_malformed_stays_exit_2(tmp_path):
    """Through the command line: the CBC file of issue 27 (cut mid-line: was exit 2),
    a HiGHS 1.16 file cut in its columns (mid-line, and at a line boundary: the
    ``# Columns`` count says lines are missing), and a bad line that is not a cut.  (A raw
    file that ends right after its whole columns block is the columns-only file that
    ``Highs.readSolution`` takes, as annc's ``.start.highs`` is: it reads as one.)"""
    vmap, data = VERSIONS / "models" / "xor16.map.json", VERSIONS / "models" / "xor16.csv"
    plain = (VERSIONS / "cbc-2.935_optimal_plain.sol").read_text()
    raw = (VERSIONS / "highs-1.16.0_optimal_raw.sol").read_text()
    columns_end = raw.index("# Rows")
    line_cut = raw.rindex("\n", 0, raw.rindex("\n", 0, columns_end - 1)) + 1  # two column lines short
    cases = [("cbc_cut.sol", plain[:plain.index("\n", 200) - 3], 4, "the file is truncated"),
             ("highs_cut.sol", raw[:columns_end - 5], 4, "the file is truncated"),
             ("highs_cut2.sol", raw[:line_cut], 4, "it is truncated"),
             ("cbc_bad.sol", plain.replace("\n", " x\n", 2), 2, "expected '<index> <name> <value>")]
    for name, text, code, message in cases:
        path = tmp_path / name
        path.write_text(text)
        got, out, err = run_cli("decode", path, "--map", vmap, "--data", data, "-o", tmp_path / "out")
        assert got == code and message in err, (name, out + err)
        assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["Model st", "Optimal - obj", "<?xm", "=ob", "solution sta", "s mi",
                                  "NAME m\n", "Columns\n", "NAME  "])
def test_a_file_cut_within_its_first_line_is_truncated(tmp_path, text):
    path = tmp_path / "s.sol"
    path.write_text(text)
    with pytest.raises(TruncatedSolutionError, match="within the first line"):
        read_solution(path)


def test_an_empty_file_is_no_solution_file(tmp_path):
    """Offset 0 is not a truncation: nothing was written (exit 2, as before)."""
    path = tmp_path / "s.sol"
    path.write_text("")
    with pytest.raises(SolutionError, match="the solution file is empty") as err:
        read_solution(path)
    assert not isinstance(err.value, TruncatedSolutionError)
