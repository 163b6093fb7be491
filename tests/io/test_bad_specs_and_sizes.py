"""Odd specs and CSVs (issue 10): located errors of annc's own types, exit 2, nothing written.

Numbers a solver cannot use, models over the size limit, deep nesting, many or unusual
diagnostics, and CSV cells and labels that used to end in a traceback.
"""
import numpy as np
import pytest

from annc.solve.compiler import build
from annc.io.data import load_data
from annc.core.errors import DataError, SizeError, SpecError, UsageError
from annc.formulations import formulate
from annc.core.limits import MAX_M_OVER_EPS, MAX_NONZEROS, data_size, model_size
from annc.io.problem import make_problem
from annc.io.spec import load_spec, parse_spec

from conftest import ROOT, run_cli, assert_names

XOR = "input 5\nhidden 5 binary\noutput 2\n"
HEADER = "x1,x2,x3,x4,x5,label\n"
ROWS = "1,0,1,0,1,0\n0,1,0,1,0,1\n"


def spec_error(text):
    with pytest.raises(SpecError) as e:
        parse_spec(text, "s.ann")
    return e.value


def only(text):
    err = spec_error(text)
    assert len(err.diagnostics) == 1, str(err)
    return err.diagnostics[0]


def compile_fails(tmp_path, spec_text, csv_text=HEADER + ROWS, *extra):
    """Run ``annc compile`` on the two texts: exit 2, annc's own message, nothing written."""
    (tmp_path / "s.ann").write_text(spec_text, encoding="utf-8")
    (tmp_path / "d.csv").write_text(csv_text, encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, stderr = run_cli("compile", "--no-start", tmp_path / "s.ann", tmp_path / "d.csv", "-o", out, *extra)
    assert code == 2, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    assert not out.exists() or not any(out.iterdir())
    return stderr


# ----------------------------------------------------------------------------- numbers in specs

@pytest.mark.parametrize("setting,column", [("input {}", 7), ("hidden {} binary", 8),
                                            ("output {}", 8), ("P {}", 3)])
def test_integers_too_long_for_int_are_located(setting, column):
    big = "1" + "0" * 5000  # int() refuses more than 4300 digits
    text = {"input {}": f"input {big}\noutput 2\n",
            "hidden {} binary": f"input 5\nhidden {big} binary\noutput 2\n",
            "output {}": f"input 5\noutput {big}\n",
            "P {}": f"P {big}\ninput 5\nhidden 2 relu\noutput 2\n"}[setting]
    d = only(text)
    assert d.column == column and "must be at most" in d.message
    assert "(5001 characters)" in d.message and len(d.message) < 300


@pytest.mark.parametrize("line", ["weights [-1, 1{}]", "bias [-1{}, 1]", "eps 1{}", "M 1{}",
                                  "loss hinge 1{}", "penalty l1 1{}"])
def test_values_past_double_range_are_too_large(line):
    text = f"input 5\nhidden 2 binary\noutput 2\n{line.format('0' * 400)}\n"
    d = only(text)
    number = line.index("-1{}") if "-1{}" in line else line.index("1{}")
    assert (d.line, d.column) == (4, number + 1)
    assert "is too large" in d.message


@pytest.mark.parametrize("line,column", [("weights [-1e308, 1e308]", 10), ("bias [-1e308, 1e308]", 7),
                                         ("eps 1e308", 5), ("M 1e15", 3), ("loss hinge 2e15", 12)])
def test_values_a_solver_reads_as_infinite_are_refused_where_written(tmp_path, line, column):
    d = only(XOR + line + "\n")
    assert (d.line, d.column) == (4, column) and "stays below 1e+15" in d.message
    stderr = compile_fails(tmp_path, XOR + line + "\n")
    assert f"s.ann:4:{column}: error" in stderr


def test_eps_lost_next_to_big_m_is_refused_at_eps(tmp_path):
    stderr = compile_fails(tmp_path, XOR + "eps 1e-12\n")
    assert_names(stderr, "s.ann:4:1: ", "eps 1e-12", "big-M")
    assert f"past {MAX_M_OVER_EPS:g} times eps" in stderr


def test_a_huge_user_m_is_refused_at_its_block(tmp_path):
    stderr = compile_fails(tmp_path, "input 5\nhidden 5 binary\noutput 2 { M 1e14 }\n")
    assert "s.ann:3:12: error:" in stderr and "(M 1e+14)" in stderr


def test_a_huge_bias_box_is_named_when_eps_is_the_default(tmp_path):
    stderr = compile_fails(tmp_path, XOR + "bias [-1e14, 1e14]\n")
    assert "s.ann:4:1: error:" in stderr and "bias box 1e+14" in stderr


def test_a_huge_eps_overflows_the_loss_floor(tmp_path):
    stderr = compile_fails(tmp_path, XOR + "eps 9e14\nloss nll\n")  # 9e14 x 1 x 2 samples
    assert "s.ann:4:1: error:" in stderr and "loss floor" in stderr  # the nll floor scales with eps


def test_valid_moderate_settings_still_compile(tmp_path):
    (tmp_path / "s.ann").write_text(XOR + "weights [-1e3, 1e3]\neps 1e-4\nM auto\n")
    (tmp_path / "d.csv").write_text(HEADER + ROWS + "1e3,0,0,0,0,1\n")  # big-M 1e6: 1e10 eps
    code, _, stderr = run_cli("compile", "--no-start", tmp_path / "s.ann", tmp_path / "d.csv", "-o", tmp_path / "out")
    assert code == 0, stderr
    assert "warning: largest big-M" in stderr  # past the soft limit: a warning, not a refusal


# ----------------------------------------------------------------------------- numbers in data

def test_a_cell_past_the_coefficient_limit_is_located(tmp_path):
    stderr = compile_fails(tmp_path, XOR, HEADER + ROWS + "1e308,0,0,0,0,1\n")
    assert_names(stderr, "d.csv: ", "row 4", "'x1'", "'1e308'")


def test_data_rows_that_add_up_past_the_limit_name_the_row_and_column(tmp_path):
    stderr = compile_fails(tmp_path, XOR + "scale none\n", HEADER + ROWS + "0,9e14,9e14,0,0,1\n")
    assert_names(stderr, "row 4", "'x2'", "s.ann:2:1: ")


def test_labels_too_long_for_int_are_located(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(HEADER + ROWS + "1,1,1,1,1,-" + "7" * 5000 + "\n")
    with pytest.raises(DataError) as e:
        load_data(path)
    assert "row 4, column 'label' (6)" in str(e.value) and "more than 4000 digits" in str(e.value)
    assert len(str(e.value)) < 300
    with pytest.raises(DataError):  # also as a test set against known classes
        load_data(path, classes=[0, 1])


@pytest.mark.parametrize("raw,words", [
    ((HEADER + ROWS).encode() + b"1,0,0,0,0,caf\xe9\n", "row 4: not UTF-8 text (byte 0xe9"),
    (bytes(range(256)), "row 2: not UTF-8 text (byte 0x80"),
    (b"\xef\xbb\xbf", "the file is empty"),
    (HEADER.encode(), "no data rows"),
    ((HEADER + ROWS + "1_0,0,0,0,0,1\n").encode(), "'1_0' is not a number"),
    ((HEADER + ROWS + "1" * 200000 + ",0,0,0,0,1\n").encode(), "malformed CSV"),
    (("x," * 500 + "label\n" + "1," * 500 + "0\n").encode(), "... and 479 more"),
])
def test_odd_csv_files(tmp_path, raw, words):
    path = tmp_path / "d.csv"
    path.write_bytes(raw)
    with pytest.raises(DataError) as e:
        load_data(path)
    assert words in str(e.value)


def test_csv_rows_keep_their_file_lines(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(HEADER + "\n1,0,1,0,1,0\n\n0,1,0,1,0,1\n")
    assert load_data(path).lines.tolist() == [3, 5]


# ----------------------------------------------------------------------------- sizes

def test_a_huge_hidden_layer_is_refused_before_it_is_built(tmp_path, monkeypatch):
    import annc.solve.compiler

    def no_building(*args, **kw):
        raise AssertionError("the model was being built")
    monkeypatch.setattr(annc.solve.compiler, "formulate", no_building)
    monkeypatch.setattr(annc.solve.compiler, "make_problem", no_building, raising=False)
    stderr = compile_fails(tmp_path, "input 5\nhidden 1000000 binary\noutput 2\n")
    assert "non-zeros" in stderr and "over the limit of 50,000,000" in stderr
    assert "--max-nonzeros" in stderr and "GiB" in stderr


@pytest.mark.parametrize("text,words", [
    ("input 5\nhidden 1000000000 binary\noutput 2\n", "'hidden' width must be at most 1,000,000"),
    ("input 5\nhidden 2 relu\noutput 2\nP 1000000000\n", "'P' must be at most 1,000"),
    ("input 5\n" + "hidden 1 binary\n" * 101 + "output 2\n", "more than 100 hidden layers"),
    ("input 2000000\noutput 2\n", "'input' must be at most 1,000,000"),
])
def test_absurd_sizes_are_refused_in_the_spec(text, words):
    assert words in only(text).message


def test_max_nonzeros_option(tmp_path):
    stderr = compile_fails(tmp_path, XOR, HEADER + ROWS, "--max-nonzeros", "10")
    assert_names(stderr, "10 non-zeros")
    code, _, stderr = run_cli("compile", "--no-start", tmp_path / "s.ann", tmp_path / "d.csv", "-o",
                              tmp_path / "out", "--max-nonzeros", "1e6")
    assert code == 0, stderr
    for command, bad in [("compile", "0"), ("compile", "-3"), ("compile", "abc"),
                         ("compile", "1.5"), ("compile", "nan"), ("train", "x")]:
        with pytest.raises(SystemExit) as e:  # an argparse usage error
            run_cli(command, tmp_path / "s.ann", tmp_path / "d.csv", "-o", tmp_path / "o2",
                    "--max-nonzeros", bad)
        assert e.value.code == 2 and not (tmp_path / "o2").exists()


def test_build_takes_max_nonzeros(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(HEADER + ROWS)
    spec, data = parse_spec(XOR + "eps 0.001\n"), load_data(path)
    with pytest.raises(SizeError):
        build(spec, data, max_nonzeros=10)
    with pytest.raises(UsageError):
        build(spec, data, max_nonzeros="many")
    assert build(spec, data, max_nonzeros=float("inf")).model.num_cols > 0


SPECS = [
    "input 3\nhidden 2 binary\noutput 2",
    "input 3\nhidden 2 binary\nhidden 3 binary\nhidden 2 binary\noutput 3\nsymmetry count",
    "input 2\nhidden 2 relu\nhidden 2 relu\noutput 2\nP 3\nsymmetry bias\npenalty l1 0.1",
    "input 2\nhidden 2 relu\nhidden 2 binary\noutput 3\nP 2\nloss errors\npenalty l0 0.1",
    "input 4\noutput 3\nloss hinge",
    "input 4\nhidden 3 binary\noutput 4\nloss errors",
    # weight and bias grids: selectors, and exact grid products after ReLU layers (zero values dropped)
    "input 3\nhidden 2 relu\nhidden 3 relu { weights [-1, 2] grid 4 }\noutput 2\nweights [-1, 1] grid 5\nP 3",
    "input 2\nhidden 2 binary\nhidden 2 relu { bias [-1, 1] grid 3 }\noutput 3 { weights [-0.5, 1] grid 7 }"
    "\nsymmetry bias\npenalty l1 0.1",
]


@pytest.mark.parametrize("text", SPECS)
@pytest.mark.parametrize("merge", [True, False])
def test_size_estimate_matches_the_built_model(text, merge):
    """Columns and rows exact (nll; an upper bound otherwise), non-zeros an upper bound
    that is exact when no big-M or count is zero."""
    spec = parse_spec(text)
    rng = np.random.default_rng(len(text))
    X = rng.integers(-1, 3, size=(14, spec.inputs)).astype(float)
    y = np.r_[np.arange(spec.classes), rng.integers(0, spec.classes, 14 - spec.classes)]
    st = formulate(make_problem(spec, X, y, list(range(spec.classes)), merge=merge)).stats()
    est = data_size(spec, X, merge=merge)
    assert est.nonzeros >= st["nonzeros"] and est.nonzeros <= 1.3 * st["nonzeros"]
    if spec.loss == "nll":
        assert (est.columns, est.rows) == (st["columns"], st["rows"])
    else:
        assert est.columns >= st["columns"] and est.rows >= st["rows"]


def test_the_mnist_size_benchmark_fits_the_default_limit():
    spec = load_spec(ROOT / "bench" / "suites" / "mnist.ann")
    size = model_size(spec, rows=2000, row_nonzeros=int(2000 * 784 * 0.19), pairs_present=2000)
    assert 13_000_000 < size.nonzeros < MAX_NONZEROS


# ----------------------------------------------------------------------------- parsing

def test_deeply_nested_blocks_are_a_located_error():
    err = spec_error("input 5\noutput 2 " + "{ x " * 3000 + "}" * 3000 + "\n")
    assert (err.diagnostics[0].line, err.diagnostics[0].column) == (2, 12)
    assert "takes no { } block" in str(err)
    assert "unexpected '{'" in str(spec_error("input 5\noutput 2 " + "{ " * 3000 + "}" * 3000))


def test_diagnostics_are_capped():
    err = spec_error("input 5\noutput 2\n" + "eps 0.1\n" * 20001)
    assert len(err.diagnostics) == 20000
    text = str(err)
    assert text.count("error: duplicate setting 'eps'") == 20
    assert "... and 19980 more errors\n20000 errors in spec" in text


def test_a_spec_over_the_size_limit_is_refused():
    d = only("input 5\noutput 2\n#" + "x" * 1_100_000 + "\n")
    assert_names(d.message, "1,000,000")
    assert len(d.format()) < 500  # the long line is shown as a window


def test_a_spec_that_is_not_utf8_gets_a_position(tmp_path):
    path = tmp_path / "s.ann"
    path.write_bytes(b"input 5\noutput 2\n# caf\xc3\xa9 ok\neps 0.1 # \xff\n")
    with pytest.raises(SpecError) as e:
        load_spec(path)
    d = e.value.diagnostics[0]
    assert (d.line, d.column) == (4, 11) and "byte 0xff" in d.message
    assert d.format().splitlines()[1:] == ["    eps 0.1 # \ufffd", "    " + " " * 10 + "^"]
    code, _, stderr = run_cli("compile", "--no-start", path, tmp_path / "none.csv", "-o", tmp_path / "out")
    assert code == 2 and f"{path}:4:11: error" in stderr


@pytest.mark.parametrize("space", ["\f", "\v", "\r"])
def test_unusual_whitespace_keeps_lines_and_caret(space):
    d = only(f"input 5{space}\n{space}output 2 3\n")
    assert (d.line, d.column) == (2, 11)
    assert d.format().splitlines()[1:] == ["     output 2 3", "              ^"]


def test_a_long_line_is_shown_around_the_caret():
    d = only("input 5\noutput 2 " + "x " * 5000 + "\n")
    source, caret = d.format().splitlines()[1:]
    assert len(source) < 140 and caret.endswith("^") and source[len(caret) - 1] == "x"
    d = only("input 5\noutput 2\n" + "  " * 3000 + "eps -1\n")
    source, caret = d.format().splitlines()[1:]
    assert source.startswith("    ...") and source[len(caret) - 1] == "-"


# ----------------------------------------------------------------------------- Python API

@pytest.mark.parametrize("X,y", [([[0, 1], [1, 0]], [0, 2]), ([[0, 1], [1, 0]], [0]),
                                 ([[0, np.nan], [1, 0]], [0, 1]), ([0, 1], [0, 1]),
                                 ([["a", 1], [1, 0]], [0, 1]), ([[0, 1], [1, 0]], [0.5, 1])])
def test_make_problem_refuses_bad_arrays(X, y):
    with pytest.raises(UsageError):
        make_problem(parse_spec("input 2\noutput 2"), X, y, [0, 1])


def test_parse_spec_and_load_data_refuse_bad_argument_types(tmp_path):
    with pytest.raises(UsageError):
        parse_spec(b"input 5\noutput 2\n")
    path = tmp_path / "d.csv"
    path.write_text(HEADER + ROWS)
    with pytest.raises(UsageError):
        load_data(path, label=5)


def test_a_huge_cell_is_malformed_csv_whatever_the_process_field_limit(tmp_path, monkeypatch):
    """scipy's ARFF reader (scikit-survival's data sets) raises csv.field_size_limit for the whole
    process; annc's own limit on a cell does not move with it."""
    import csv
    from annc.core.errors import DataError
    from annc.io.data import load_data
    old = csv.field_size_limit()
    try:
        csv.field_size_limit(10 ** 9)
        path = tmp_path / "d.csv"
        path.write_text("x1,label\n1,0\n" + "1" * 200_000 + ",1\n")
        with pytest.raises(DataError, match="malformed CSV"):
            load_data(path)
    finally:
        csv.field_size_limit(old)
