"""What ``annc decode`` prints and records on a real-data-like decode (issue 29), and the
report of the weights it writes.

The fixture is what a new user does: a small CSV that is not XOR (three features, two of
them with long names), ``annc compile``, HiGHS through highspy (stopped at its first
incumbent: deterministic, and a lower bound that proves nothing, as on real data),
``Highs.writeSolution``, ``annc decode``.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from annc.core.network import TrainedNetwork
from annc.solve.solvers.highs_scheduler import run as highs_run
from annc.export.report import decoded_verdict_lines, verdict_lines
from annc.io.solutions import RawSolution, Status
from annc.solve.verdict import judge

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import assert_names, run_cli  # noqa: E402

FEATURES = ["Alcalinity_of_ash", "Magnesium", "Proline_of_a_very_long_feature_name_indeed"]
FLOOR = "the formulation's floor"  # the source of decode's lower bound
SPEC = "input 3\nhidden 2 binary\noutput 2\nloss nll\n"


def _csv(path: Path) -> Path:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=60) > 0).astype(int)
    path.write_text(",".join(FEATURES) + ",label\n"
                    + "".join(",".join(f"{v:.3f}" for v in r) + f",c{k}\n" for r, k in zip(X, y)))
    return path


@pytest.fixture(scope="module")
def decoded(tmp_path_factory):
    """(folder, data CSV, decode's stdout, the weights file it wrote)."""
    import highspy
    root = tmp_path_factory.mktemp("decode")
    data = _csv(root / "wine_like.csv")
    (root / "small.ann").write_text(SPEC)
    code, _, err = run_cli("compile", "--no-start", root / "small.ann", data, "-o", root / "out")
    assert code == 0, err
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_max_improving_sols", 1)  # the first incumbent: a feasible point, bound ~0
    h.readModel(str(root / "out" / "small.mps"))
    # one thread, through annc's lease of this thread's scheduler: a test before this one in the
    # same process may have started it with another count, which HiGHS 1.16 then refuses
    assert highs_run(h, threads=1) != highspy.HighsStatus.kError  # kWarning: stopped at the first incumbent
    h.writeSolution(str(root / "out" / "small.sol"), 0)
    code, out, err = run_cli("decode", root / "out" / "small.sol", "--data", data, "-o", root / "w")
    assert code == 0, out + err
    return root, data, out, root / "w" / "small.weights.json"


def _block(out: str, head: str) -> list[str]:
    """The indented lines under ``head`` in decode's output (up to the next unindented one)."""
    lines = out.splitlines()
    start = lines.index(head) + 1
    end = next((i for i in range(start, len(lines)) if lines[i] and not lines[i].startswith(" ")), len(lines))
    return lines[start:end]


def _field(lines: list[str], label: str) -> str:
    """The text of the verdict field ``label`` with its continuation lines, joined."""
    i = next(i for i, line in enumerate(lines) if line.startswith(f"  {label} "))
    parts = [lines[i][21:]]
    for line in lines[i + 1:]:
        if not line.startswith(" " * 21):
            break
        parts.append(line.strip())
    return " ".join(p.strip() for p in parts)


# -- 1. the verdict block: every line whole, none blank, none twice ------------------------------
def test_decode_prints_the_whole_bound_note_and_no_blank_line(decoded):
    _, _, out, _ = decoded
    verdict = _block(out, "verdict on the decoded network:")
    assert all(line.strip() for line in verdict), verdict  # no stray blank line
    note = _field(verdict, "bound note")
    assert note.endswith("judge it by held-out accuracy (annc eval WEIGHTS TEST.csv)"), note
    assert sum(line.startswith("  solver ") for line in verdict) == 1
    assert "(from the file)" in _field(verdict, "solver")
    assert _field(verdict, "lower bound").startswith(f"0 ({FLOOR}")
    assert len(verdict) == len(set(verdict))  # no line twice


@pytest.mark.parametrize("relaxed, source", [(False, "solver"), (True, "solver"), (False, "exact finish")])
def test_decoded_verdict_keeps_every_line_of_the_verdict(relaxed, source):
    """The solver's claim is added, never written over a line of the verdict (the last line
    was the bound note's, or 'network from')."""
    v = judge(3.4, 0.0, relaxed=relaxed, source=source)
    sol = RawSolution("highs", Status.FEASIBLE, "Time limit reached", 305.74)
    lines = decoded_verdict_lines(v, sol)
    assert all(line.strip() for line in lines)
    assert _field(lines, "bound note").endswith("held-out accuracy (annc eval WEIGHTS TEST.csv)")
    assert _field(lines, "solver") == "feasible (Time limit reached), objective 305.74 (from the file)"
    assert any(line.startswith("  network from ") for line in lines) == (source != "solver")
    assert any(line.startswith("  note ") for line in lines) == relaxed
    train = verdict_lines(v, None)  # annc train's verdict without a solver result: no blank line
    assert all(line.strip() for line in train)
    assert _field(train, "bound note").endswith("held-out accuracy (--test, --select)")


# -- 2. the weights record the decode; the report shows it --------------------------------------
def test_decoded_weights_record_the_verification_and_verdict(decoded):
    _, _, out, weights = decoded
    meta = TrainedNetwork.load(weights).meta
    objective = float(re.search(r"^  objective +(\S+) \(the exported network's", out, re.M).group(1))
    assert meta["status"] == "feasible" and meta["decoded_from"].endswith("small.sol")
    [step] = meta["steps"]
    assert step["verified"] is True and step["status"] == "feasible"
    assert step["objective"] == pytest.approx(objective)
    assert step["lower_bound"] == 0 and step["bound_source"] == FLOOR and step["bound_says_nothing"]
    assert step["verification"]["samples"] == 60


def test_report_of_decoded_weights_shows_the_decode(decoded, tmp_path):
    _, data, out, weights = decoded
    code, _, err = run_cli("report", weights, "--data", data, "-o", tmp_path / "r.html")
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "no training record" not in html and "no MIP recorded" not in html
    verdict = html.split('id="verdict"')[1].split("</div>")[0]
    assert "annc decode" in verdict and "verification passed" in verdict and "feasible" in verdict
    assert "nothing is proven" in verdict  # the bound of 0 says nothing: said in words
    row = html.split('id="steps"')[1].split("</table>")[0].split("</tr>")[1]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    objective = re.search(r"^  objective +(\S+) \(the exported network's", out, re.M).group(1)
    assert cells[1] == "feasible" and float(cells[2]) == pytest.approx(float(objective))
    assert cells[3] == "0 (the formulation&#39;s floor)" and cells[6] == "passed"
    assert "they agree" in html  # the objective recomputed on --data is the one decode recorded


def test_report_words_for_weights_decoded_without_verification():
    from annc.export.html_report import verdict_words
    words = verdict_words({"decoded_from": "out/x.sol", "status": "optimal"})
    assert words.startswith("decoded from out/x.sol by annc decode --no-verify: not verified")
    assert "proven optimal" not in words


# -- 3. long feature names fit the network drawing ----------------------------------------------
def _outside(driver, page: Path) -> list:
    """The texts of ``page``'s network drawing whose box (getBBox, as Chromium lays them
    out) leaves the drawing's viewBox, as [text, x, y, width, height]."""
    driver.get(page.as_uri())
    width, height, texts = driver.execute_script(
        "const svg = document.getElementById('network');"
        "return [svg.viewBox.baseVal.width, svg.viewBox.baseVal.height,"
        " [...svg.querySelectorAll('text')].map(t => {const b = t.getBBox();"
        " return [t.textContent, b.x, b.y, b.width, b.height];})];")
    assert len(texts) > 5
    return [t for t in texts if t[1] < 0 or t[2] < 0 or t[1] + t[3] > width or t[2] + t[4] > height]


def _wide_names(folder: Path) -> tuple[Path, Path]:
    """A network whose feature and class names are long and drawn with the widest glyphs."""
    from annc.core.network import Layer
    net = TrainedNetwork(["WWWWWWWWWWWWWWWWWWWWWWWWWWWW", "b"],
                         [Layer("binary", np.ones((2, 2)), np.zeros(2)), Layer("linear", np.eye(2), np.zeros(2))])
    weights = net.save(folder / "wide")[0]
    data = folder / "wide.csv"
    data.write_text("MMMMMMMMMMMMMMMMMMMMMMM,mmmmmmmmmmmmmmmmmmmmmmmmmmmmmm,label\n0,1,b\n1,0,WWWWWWWWWWWWWWWWWWWWWWWWWWWW\n")
    return weights, data


def test_network_labels_lie_inside_the_drawing(decoded, tmp_path):
    from test_html_report import browser
    _, data, _, weights = decoded
    code, _, err = run_cli("report", weights, "--data", data, "-o", tmp_path / "r.html")
    assert code == 0, err
    wide, wide_data = _wide_names(tmp_path)
    code, _, err = run_cli("report", wide, "--data", wide_data, "-o", tmp_path / "wide.html")
    assert code == 0, err
    driver = browser()
    try:
        assert _outside(driver, tmp_path / "r.html") == []
        assert _outside(driver, tmp_path / "wide.html") == []
    finally:
        driver.quit()
    html = (tmp_path / "r.html").read_text()
    assert ">Alcalinity_of_ash</text>" in html  # short enough: shown whole
    long_name = FEATURES[2]
    assert long_name not in re.findall(r">([^<>]*)</text>", html)  # too long: cut, with ...
    assert f"<title>{long_name}</title>" in html  # ... and the full name in its tooltip


# -- other lines of decode's output ---------------------------------------------------------------
def test_verification_values_line_up(decoded):
    _, _, out, _ = decoded
    lines = _block(out, "verification:")
    assert any(line.startswith("  layer 0 activations") for line in lines)
    assert [line[:24] for line in lines if line[23] != " " or line[24] == " "] == []  # every value at column 25


def test_a_failed_verification_counts_its_other_problems_in_words(decoded, tmp_path):
    root, data, _, _ = decoded
    text = (root / "out" / "small.sol").read_text()
    bad = tmp_path / "bad.sol"
    flipped = re.sub(r"^(h0_0_0) 1$", r"\1 0", text, count=1, flags=re.M)  # one activation flipped:
    assert flipped != text  # a row violated, an activation the network does not share
    bad.write_text(flipped)
    code, out, err = run_cli("decode", bad, "--map", root / "out" / "small.map.json", "--data", data,
                             "-o", tmp_path / "w")
    assert code == 4 and "verification          FAILED" in out
    assert err.count("\n") == 1 and "(and 1 more problem);" in err


def test_decode_writes_beside_the_map_by_default(tmp_path, monkeypatch):
    """``annc decode SOL --map ext/x.map.json`` without ``-o`` writes the weights beside the
    map (not to ./out); the folders of a failed map search are listed once each."""
    import shutil
    ext = tmp_path / "ext"
    data = _csv(tmp_path / "wine_like.csv")
    (tmp_path / "small.ann").write_text(SPEC)
    code, _, err = run_cli("compile", "--start-budget", "5", tmp_path / "small.ann", data, "-o", ext)
    assert code == 0, err
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    sol = elsewhere / "run.sol"
    shutil.copy(ext / "small.start.highs", sol)
    monkeypatch.chdir(elsewhere)
    code, out, err = run_cli("decode", sol, "--map", ext / "small.map.json")
    assert code == 0, out + err
    assert (ext / "run.weights.json").is_file() and f"wrote {ext / 'run.weights.json'}" in out
    assert not (elsewhere / "out").exists()
    # no map found: "out or ." once each, not "out or out or ."
    code, _, err = run_cli("decode", "run.sol")
    assert code == 2, err
    assert_names(err, "variable map", "out or .")
