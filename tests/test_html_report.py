"""The HTML report: rendered from a trained XOR network, opened in a real headless Chromium
(Debian's chromium + chromedriver, driven by Selenium): no console errors, a screenshot
that is not blank, and content that matches annc's own forward pass."""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from annc.data import load_data
from annc.datasets import write_csv, xor_data
from annc.network import Layer, TrainedNetwork
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
    code, out, err = run_cli("train", str(spec), str(data), "--test", str(test), "--time-limit", "20",
                             "-q", "--report", "-o", str(root / "out"))
    assert code == 0, err
    return root, data, test, out


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1600"):
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
    code, out, err = run_cli("report", str(weights), "--data", str(data_csv), "--test", str(test_csv),
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
    status = net.meta["status"]
    assert f'class="verdict {status}"' in html
    assert html.count('class="chart"') == len(net.meta["steps"])  # the incumbent/bound trace


def test_report_of_a_hand_made_network_says_nothing_is_proven(tmp_path):
    net = TrainedNetwork(["no", "yes"], [Layer("relu", np.array([[1.0, 0.0]]), np.zeros(2)),
                                         Layer("linear", np.array([[1.0, -1.0], [0.0, 0.0]]), np.zeros(2))])
    net.save(tmp_path / "hand")
    code, out, err = run_cli("report", str(tmp_path / "hand.weights.json"), "-o", str(tmp_path / "h.html"))
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
    code, out, err = run_cli("report", *[a.format(w=w, tmp=tmp_path) for a in args])
    assert code == 2 and message in err and "Traceback" not in err
    assert sorted(tmp_path.rglob("*")) == before
