"""Missing cells (annc.core.missing) and ``input auto``: the newcomer's flow end to end.

A CSV of 2 numeric and 2 text columns with empty, NA and NaN cells in both kinds, a spec that
leaves its input count to the data: ``annc train --missing impute`` records the fills, and
``annc eval``, ``annc report``, the ONNX model (onnxruntime) and the Python API then predict the
same classes on the test rows, those with missing cells included.  Without ``--missing`` the
run stops with exit 2, names the columns and the rows, and writes nothing; ``drop`` drops and
says so; a wrong explicit ``input`` still gets its message.
"""
from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annc.core.categories import is_missing
from annc.core.errors import DataError, MissingValuesError, UsageError
from annc.core.missing import settle
from annc.io.data import load_data
from annc.io.spec import format_spec, parse_spec

from conftest import run_cli, assert_names

TEXT = {"city": ["Lyon", "Nice", "Paris"], "kind": ["blue", "red"]}


def _write(path, n: int, seed: int):
    """A CSV of ``n`` rows: numeric ``age`` and ``score``, text ``city`` and ``kind``, a label
    ``y``; some cells empty, ``NA`` or ``NaN`` in each of the four feature columns."""
    rng = np.random.default_rng(seed)
    age, score = rng.normal(50, 10, n), rng.uniform(0, 1, n)
    city, kind = rng.choice(TEXT["city"], n), rng.choice(TEXT["kind"], n)
    y = ((age > 50) ^ (city == "Paris")).astype(int)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["age", "score", "city", "kind", "y"])
        for i in range(n):
            row = [f"{age[i]:.3f}", f"{score[i]:.3f}", city[i], kind[i], y[i]]
            if i % 11 == 3:
                row[0] = ""
            if i % 13 == 5:
                row[1] = "NaN"
            if i % 7 == 2:
                row[2] = ""
            if i % 17 == 4:
                row[3] = "NA"
            w.writerow(row)
    return path


@pytest.fixture(scope="module")
def flow(tmp_path_factory):
    d = tmp_path_factory.mktemp("missing")
    train, test = _write(d / "train.csv", 240, 0), _write(d / "test.csv", 60, 1)
    spec = d / "net.ann"
    spec.write_text("input auto\nhidden 2 binary\noutput 2\n")
    out = d / "out"
    code, stdout, err = run_cli("train", spec, train, "--test", test, "--missing", "impute", "--no-select",
                                "--time-limit", 10, "--report", "-o", out)
    assert code == 0, err
    return {"dir": d, "train": train, "test": test, "spec": spec, "out": out, "stdout": stdout,
            "json": out / "net.weights.json", "map": out / "net.map.json", "report": out / "net.report.html"}


def _test_rows(path):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    return rows, np.array([int(r["y"]) for r in rows])


def test_train_says_what_input_auto_chose_and_records_the_resolved_spec(flow):
    line = "input              7 (auto: 2 numeric columns + 5 one-hot columns of 2 text columns)"
    assert line in flow["stdout"]
    assert re.search(r"missing cells      imputed \d+ missing cells in \d+ of 240 rows of .*train\.csv: 'age' ",
                     flow["stdout"])
    vmap = json.loads(flow["map"].read_text())
    assert vmap["spec"]["text"].startswith("input 7\n") and vmap["options"]["missing"] == "impute"
    weights = json.loads(flow["json"].read_text())
    fills = weights["columns"]["imputed"]
    assert fills == vmap["data"]["imputed"] and set(fills) == {"age", "score", "city", "kind"}
    assert fills["city"] in TEXT["city"] and fills["kind"] in TEXT["kind"]
    assert isinstance(fills["age"], float)
    assert weights["meta"]["spec_text"].startswith("input 7  # auto: 2 numeric columns + 5 one-hot columns of 2 "
                                                   "text columns\nhidden 2 binary\n")


def test_eval_report_onnx_and_the_api_predict_alike_on_rows_with_missing_cells(flow):
    pd = pytest.importorskip("pandas")
    ort = pytest.importorskip("onnxruntime")
    import annc
    from annc.core.ensemble import load_model
    rows, y = _test_rows(flow["test"])
    missing = [i for i, r in enumerate(rows) if any(is_missing(r[c]) for c in ("age", "score", "city", "kind"))]
    assert len(missing) >= 10
    net = load_model(flow["json"])

    frame = pd.read_csv(flow["test"])  # pandas reads '', NA and NaN as NaN
    api = np.asarray(net.predict(frame.drop(columns="y")))
    raw = np.asarray(net.predict([[r["age"], r["score"], r["city"], r["kind"]] for r in rows]))  # raw text cells
    assert (api == raw).all()

    code, out, err = run_cli("eval", flow["json"], flow["test"])
    assert code == 0, err
    accuracy = float(re.search(r"accuracy (\d\.\d+)", out).group(1))
    assert accuracy == pytest.approx(np.mean(api == y), abs=5e-5)
    assert "missing cells: imputed" in out

    page = flow["dir"] / "page.html"
    code, _, err = run_cli("report", flow["json"], "--test", flow["test"], "-o", page)
    assert code == 0, err
    html = page.read_text()
    shown = re.search(r"<strong>test</strong>: accuracy <strong>(\d\.\d+)</strong> on 60 rows", html)
    assert shown and float(shown.group(1)) == pytest.approx(accuracy, abs=5e-5)
    assert "Missing cells" in html and "Missing cells" in flow["report"].read_text()

    onnx_path = flow["dir"] / "net.onnx"
    code, out, err = run_cli("export", flow["json"], "--onnx", onnx_path)
    assert code == 0, err and "imputed in the graph" in out
    session = ort.InferenceSession(str(onnx_path))
    feeds = {"X": frame[["age", "score"]].to_numpy(float)}
    for c in TEXT:  # strings as a caller has them: a missing cell as '' or 'NA'
        feeds[c] = np.array([r[c] for r in rows], dtype=object)
    onnx_class = session.run(["class"], feeds)[0]
    assert (onnx_class == api).all()

    result_rows = np.asarray(annc.load_model(flow["json"]).predict(frame.drop(columns="y").iloc[missing]))
    assert (result_rows == api[missing]).all()


def test_without_missing_the_run_stops_with_exit_2_and_writes_nothing(flow, tmp_path):
    out = tmp_path / "out"
    for command in (("train", "--no-select", "--time-limit", 10), ("compile", "--no-start")):
        code, stdout, err = run_cli(command[0], flow["spec"], flow["train"], *command[1:], "-o", out)
        assert code == 2 and "Traceback" not in err
        assert re.search(r"train\.csv: \d+ of 240 rows have a missing cell \(empty, NA or NaN; rows 4, 5, 6, 7, 11, \.\.\.\) in columns ", err), err
        for column in ("'age' (", "'score' (", "'city' (", "'kind' ("):
            assert column in err
        assert "--missing drop" in err and "--missing impute" in err
        assert not out.exists()


def test_drop_drops_the_rows_and_says_how_many(flow, tmp_path):
    out = tmp_path / "out"
    code, stdout, err = run_cli("compile", flow["spec"], flow["train"], "--missing", "drop", "--no-start", "-o", out)
    assert code == 0, err
    dropped = re.search(r"dropped (\d+) of 240 rows of .*train\.csv with a missing cell", stdout)
    assert dropped, stdout
    rows, _ = _test_rows(flow["train"])
    want = sum(any(is_missing(r[c]) for c in TEXT | {"age": 0, "score": 0}) for r in rows)
    assert int(dropped.group(1)) == want
    assert f"{240 - want} samples" in stdout
    vmap = json.loads((out / "net.map.json").read_text())
    assert vmap["options"]["missing"] == "drop" and "imputed" not in vmap["data"]
    # decode's data check reads the training CSV again, as the compile did: the same rows
    from annc.solve.verify import rebuild
    assert rebuild(vmap, map_path=out / "net.map.json").problem.num_samples == 240 - want


def test_a_network_without_fills_refuses_missing_cells(flow, tmp_path):
    """At prediction, no recorded fill: the same clear error, never a 0."""
    import annc
    clean = tmp_path / "clean.csv"
    with open(flow["train"]) as fh, open(clean, "w") as out:
        out.write("".join(line for i, line in enumerate(fh) if i == 0 or not re.search(r"(^|,)(NA|NaN)?(,|$)", line)))
    r = annc.train("input auto\nhidden 1 binary\noutput 2\n", str(clean), select=False, time_limit=10)
    assert r.network.columns.imputed == ()
    with pytest.raises(MissingValuesError, match=r"'age' \(1 row\).*imputation"):
        r.network.predict([[np.nan, 0.5, "Lyon", "red"]])
    with pytest.raises(DataError, match="The network records no imputation"):
        load_data(flow["test"], inputs_of=r.network)


def test_the_api_and_the_estimator_take_nan_by_the_rule():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    import annc
    from annc.app.estimator import MIPNetClassifier
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] > 0).astype(int)
    X[::9, 1] = np.nan
    with pytest.raises(MissingValuesError, match=r"14 of 120 rows.* column 'x2' \(14 rows\)"):
        annc.train("output 2\nloss hinge\n", (X, y), select=False)
    est = MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", time_limit=20)
    with pytest.raises(ValueError, match="NaN"):  # annc's MissingValuesError, a ValueError
        est.fit(X, y)
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": np.where(y == 1, "hi", None)})
    frame.loc[frame.index[5], "c"] = "lo"
    est = MIPNetClassifier(hidden_layer_sizes=(), loss="hinge", time_limit=20, missing="impute").fit(frame, y)
    fills = dict(est.network_.columns.imputed)
    assert fills["b"] == pytest.approx(np.nanmedian(X[:, 1])) and fills["c"] == "hi"
    assert est.__sklearn_tags__().input_tags.allow_nan
    assert est.predict(frame.iloc[:3]).shape == (3,)
    dropped = annc.train("output 2\nloss hinge\n", (X, y), select=False, missing="drop")
    assert len(dropped.steps[0].compiled.data.y) == 120 - 14


def test_a_wrong_explicit_input_still_errors(flow, tmp_path):
    spec = tmp_path / "wrong.ann"
    spec.write_text("input 5\nhidden 2 binary\noutput 2\n")
    code, _, err = run_cli("train", spec, flow["train"], "--missing", "impute", "--no-select", "-o", tmp_path / "o")
    assert code == 2 and not (tmp_path / "o").exists()
    assert_names(err, "input 5", "7 feature columns", "input 7", "'city'", "3 one-hot", "'kind'", "2 one-hot")


@pytest.mark.parametrize("text", ["input auto\nhidden 3 binary\noutput 2\n", "hidden 3 relu\noutput 4\nP 4\n",
                                  "input auto\noutput 2\npenalty l0 auto\nloss errors\n"])
def test_an_auto_spec_formats_back_and_parses(text):
    spec = parse_spec(text)
    assert spec.inputs is None
    canonical = format_spec(spec)
    assert canonical.startswith("input auto\n")
    again = parse_spec(canonical)
    assert again == spec and format_spec(again) == canonical
    assert again.penalty_auto == spec.penalty_auto


def test_input_auto_resolves_penalty_auto_with_the_width():
    from annc.io.datacheck import resolve_inputs
    from annc.io.data import Dataset
    data = Dataset(np.zeros((4, 3)), np.array([0, 1, 0, 1]), [0, 1], ["a", "b", "c"], "y", "<t>", "0")
    spec = resolve_inputs(parse_spec("output 2\nhidden 2 binary\npenalty l0 auto\nloss errors\n"), data)
    assert spec == parse_spec("input 3\nhidden 2 binary\noutput 2\npenalty l0 auto\nloss errors\n")
    with pytest.raises(UsageError, match="'input auto'"):
        from annc.io.datacheck import check_against_spec
        check_against_spec(parse_spec("output 2\n"), data)


def test_the_rule_is_checked():
    with pytest.raises(UsageError, match="missing.*error, drop, impute"):
        load_data(__file__, missing="fill")
    with pytest.raises(SystemExit) as info:  # argparse's own exit 2 with the choices
        run_cli("train", "x.ann", "x.csv", "--missing", "fill")
    assert info.value.code == 2
    with pytest.raises(UsageError, match="error, drop, impute"):
        import annc
        annc.train("output 2\n", (np.zeros((4, 1)), [0, 1, 0, 1]), missing="mean")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6)), min_size=3, max_size=3), min_size=1, max_size=30),
       st.sampled_from(["drop", "impute"]))
def test_settle_never_leaves_a_missing_cell(rows, rule):
    """Whatever the pattern of missing cells: imputed, every cell is its own value or its
    column's median of the present values; dropped, the rows left are the complete ones."""
    cells = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)
    mask = np.isnan(cells)
    names = ["a", "b", "c"]
    try:
        s = settle(cells, names, [None] * 3, rule=rule, fills=None, source="X")
    except MissingValuesError as e:  # a column with no value, or no complete row left to keep
        assert (rule == "impute" and mask.all(axis=0).any()) or (rule == "drop" and mask.any(axis=1).all()), str(e)
        return
    kept = s.cells if s.keep is None else s.cells[s.keep]
    assert not np.isnan(kept).any()
    assert (kept == cells[~mask.any(axis=1)]).all() if rule == "drop" else True
    if rule == "impute":
        for j, name in enumerate(names):
            assert s.fills[name] == pytest.approx(np.nanmedian(cells[:, j]))
            assert (s.cells[~mask[:, j], j] == cells[~mask[:, j], j]).all()
        assert (s.note is None) == (not mask.any())
