"""The HTML report: rendered from a trained XOR network, opened in a real headless Chromium
(Debian's chromium + chromedriver, driven by Selenium): no console errors, a screenshot
that is not blank, and content that matches annc's own forward pass.

Run as a script, this file also makes the README's screenshot of a report (1200 px wide;
the whole page, or its top MAX_HEIGHT pixels)::

    python tests/export/test_html_report.py out/xor.report.html docs/report.png 2000
"""
from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from annc.io.data import load_data
from annc.io.datasets import write_csv, xor_data
from annc.core.ensemble import Ensemble
from annc.export.html_report import used_units, verdict_words
from annc.core.network import Layer, TrainedNetwork
from annc.core.scaling import Scaling

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # conftest's helpers, also when run as a script
from conftest import SPECS, run_cli

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """specs/xor.ann (with an HTML-like comment) trained with --report on 200 + 100 rows."""
    root = tmp_path_factory.mktemp("report")
    X, y = xor_data(200, noise=0.1, seed=0)
    Xt, yt = xor_data(100, noise=0.1, seed=1)
    data, test = write_csv(root / "xor.csv", X, y), write_csv(root / "xor_test.csv", Xt, yt)
    spec = root / "xor.ann"
    spec.write_text("# <b>not markup</b> & co\n" + (SPECS / "xor.ann").read_text())
    code, out, err = run_cli("train", str(spec), str(data), "--test", str(test), "--time-limit", "6",
                             "-q", "--report", "-o", str(root / "out"))
    assert code == 0, err
    return root, data, test, out


def browser(width: int = 1280, height: int = 1600):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def test_train_report_opens_in_chromium_without_errors_and_is_not_blank(trained):
    from PIL import Image
    root, _, _, out = trained
    page = root / "out" / "xor.report.html"
    assert f"wrote {page}" in out
    driver = browser()
    try:
        driver.get(page.as_uri())
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == []
        assert driver.find_element("id", "network").is_displayed()
        png = driver.get_screenshot_as_png()
    finally:
        driver.quit()
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert img.shape[0] > 500 and img.shape[1] > 800
    colours = {tuple(c) for c in img.reshape(-1, 3)[::7]}
    assert len(colours) > 50  # text, lines, heat-map cells: not a blank page
    background = np.all(img >= 240, axis=2).mean()
    assert background < 0.97


def test_report_content_matches_the_forward_pass(trained, tmp_path):
    root, data_csv, test_csv, _ = trained
    weights = root / "out" / "xor.weights.json"
    code, _, err = run_cli("report", str(weights), "--data", str(data_csv), "--test", str(test_csv),
                             "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    net = TrainedNetwork.load(weights)
    assert html.count('class="edge"') == net.nonzero_weights()  # one line per non-zero weight
    data, test = load_data(data_csv, classes=net.classes), load_data(test_csv, classes=net.classes)
    for name, d in (("train", data), ("test", test)):
        block = html.split(f'id="confusion-{name}"')[1].split("</table>")[0]
        cells = [int(v) for v in re.findall(r'<td class="cm">(\d+)</td>', block)]
        assert sum(cells) == len(d.y)
        pred = net.predict_index(d.X)
        assert cells[0] + cells[3] == int(np.sum(pred == d.y))  # the diagonal: right answers
        assert f"{np.mean(pred == d.y):.4f}" in block
    assert "&lt;b&gt;not markup&lt;/b&gt; &amp; co" in html and "<b>not markup" not in html
    assert "<script" not in html and "http" not in html.split("<body>")[1]  # nothing to fetch
    assert 'id="recomputed"' in html and "they agree" in html  # the objective, recomputed on the training data
    status = net.meta["status"]
    assert f'class="verdict {status}"' in html
    assert html.count('class="chart"') == len(net.meta["steps"])  # the incumbent/bound trace


def test_report_of_a_hand_made_network_says_nothing_is_proven(tmp_path):
    net = TrainedNetwork(["no", "yes"], [Layer("relu", np.array([[1.0, 0.0]]), np.zeros(2)),
                                         Layer("linear", np.array([[1.0, -1.0], [0.0, 0.0]]), np.zeros(2))])
    net.save(tmp_path / "hand")
    code, _, err = run_cli("report", str(tmp_path / "hand.weights.json"), "-o", str(tmp_path / "h.html"))
    assert code == 0, err
    html = (tmp_path / "h.html").read_text()
    assert "nothing is proven" in html
    assert html.count('class="unit dead"') == 1  # the second hidden unit has no non-zero outgoing weight


@pytest.mark.parametrize("args, message", [
    (["{tmp}/missing.weights.json", "-o", "{tmp}/r.html"], "weights file not found"),
    (["{w}", "-o", "{w}/r.html"], "cannot write"),
    (["{w}", "--data", "{tmp}/wide.csv", "-o", "{tmp}/r.html"], "feature columns"),
])
def test_report_errors_exit_2_and_write_nothing(args, message, tmp_path):
    net = TrainedNetwork([0, 1], [Layer("linear", np.eye(2), np.zeros(2))])
    w = net.save(tmp_path / "n")[0]
    write_csv(tmp_path / "wide.csv", np.zeros((4, 3)), np.array([0, 1, 0, 1]))
    before = sorted(tmp_path.rglob("*"))
    code, _, err = run_cli("report", *[a.format(w=w, tmp=tmp_path) for a in args])
    assert code == 2 and message in err and "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before


def test_verdict_in_words():
    step = {"name": "xor", "objective": 1.07, "lower_bound": 0.94, "gap": 0.1215}
    assert verdict_words({"status": "feasible", "steps": [step]}).startswith(
        "feasible, gap 12.2% to the lower bound 0.94 (objective 1.07)")
    met = {**step, "lower_bound": 1.07, "gap": 0.0}
    assert verdict_words({"status": "optimal", "steps": [met]}).startswith("proven optimal")
    # optimal only within a --gap of 12%: no proof is claimed
    assert verdict_words({"status": "optimal", "steps": [step]}).startswith("optimal within the gap asked")
    assert "nothing is proven" in verdict_words({})


def test_dead_units_are_those_pruned_removes(tmp_path):
    """Unit 2 of hidden layer 1 feeds only unit 2 of hidden layer 2, which feeds nothing:
    both are dead (pruned() removes both); input 3 feeds only the dead unit: unused."""
    W1 = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]])
    W2 = np.array([[1.0, 0.0], [0.0, 3.0]])
    W3 = np.array([[1.0, -1.0], [0.0, 0.0]])
    net = TrainedNetwork([0, 1], [Layer("binary", W1, np.zeros(2)), Layer("binary", W2, np.zeros(2)),
                                  Layer("linear", W3, np.zeros(2))])
    used = used_units(net)
    assert [u.tolist() for u in used] == [[True, False, False], [True, False], [True, False]]
    assert sum(net.pruned().meta["pruned_units"]) == sum(int(np.sum(~u)) for u in used[1:])
    net.save(tmp_path / "n")
    code, _, err = run_cli("report", str(tmp_path / "n.weights.json"), "-o", str(tmp_path / "n.html"))
    assert code == 0, err
    html = (tmp_path / "n.html").read_text()
    assert html.count('class="unit dead"') == 4  # 2 unused inputs + 2 dead hidden units
    assert html.count('class="edge"') == net.nonzero_weights()  # edges of dead units are still drawn
    assert "no trace recorded" not in html and "no MIP recorded" in html


def test_report_of_an_ensemble_summarises_its_members(tmp_path):
    rng = np.random.default_rng(0)
    classes = ["a", "b", "c"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    members = [TrainedNetwork([classes[i], classes[j]],
                              [Layer("binary", rng.normal(size=(3, 2)), rng.normal(size=2)),
                               Layer("linear", rng.normal(size=(2, 2)), rng.normal(size=2))]) for i, j in pairs]
    meta = {"training": "ovo", "status": "optimal",
            "members": [{"name": f"m{k}", "status": "optimal", "objective": 1.0, "lower_bound": 1.0,
                         "seconds": 0.5, "verified": True, "rows": 20} for k in range(3)]}
    scaling = Scaling("standard", np.zeros(3), np.full(3, 2.0))
    ens = Ensemble(classes, members, pairs, meta, scaling)
    ens.save(tmp_path / "ens")
    X = rng.normal(size=(30, 3))
    y = rng.integers(0, 3, size=30)
    (tmp_path / "d.csv").write_text("f1,f2,f3,label\n" + "".join(
        f"{a},{b},{c},{classes[k]}\n" for (a, b, c), k in zip(X, y)))
    code, _, err = run_cli("report", str(tmp_path / "ens.weights.json"), "--data", str(tmp_path / "d.csv"),
                             "-o", str(tmp_path / "e.html"))
    assert code == 0, err
    html = (tmp_path / "e.html").read_text()
    assert "one-vs-one ensemble of 3 networks" in html
    assert html.count('class="network"') == 3  # one drawing per member
    assert html.count('class="edge"') == ens.nonzero_weights()
    assert html.count("<td>20</td>") == 3  # the member table, with each member's rows
    assert "no trace recorded for m0, m1, m2" in html and "Input scaling (standard)" in html
    block = html.split('id="confusion-train"')[1].split("</table>")[0]
    cells = [int(v) for v in re.findall(r'<td class="cm">(\d+)</td>', block)]
    data = load_data(tmp_path / "d.csv", classes=ens.classes)
    pred = ens.predict_index(data.X)
    assert sum(cells) == 30 and sum(cells[k * 4] for k in range(3)) == int(np.sum(pred == data.y))


def screenshot(page: Path, png: Path, width: int = 1200, max_height: int | None = None) -> None:
    """``page`` as a PNG ``width`` pixels wide: the whole page, or its top ``max_height``
    pixels (the README's docs/report.png)."""
    driver = browser(width, 900)
    try:
        driver.get(Path(page).resolve().as_uri())
        height = driver.execute_script("return document.documentElement.scrollHeight") + 100
        driver.set_window_size(width, min(height, max_height or height))
        time.sleep(0.5)  # let the resized window repaint
        png.write_bytes(driver.get_screenshot_as_png())
    finally:
        driver.quit()


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python tests/export/test_html_report.py REPORT.html OUT.png [MAX_HEIGHT]")
    screenshot(Path(sys.argv[1]), Path(sys.argv[2]), max_height=int(sys.argv[3]) if len(sys.argv) == 4 else None)
