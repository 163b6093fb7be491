"""Bad input through the command line: a clear located message, a non-zero exit, no output."""
import pytest

from conftest import SPECS, run_cli, assert_names


def _files(folder):
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


@pytest.fixture
def good_csv(tmp_path):
    from annc.io.datasets import write_csv, xor_data
    X, y = xor_data(20, seed=0)
    return write_csv(tmp_path / "good.csv", X, y)


SPEC_CASES = [
    ("input 5\nhiden 5 binary\noutput 2\n", "2:1: error: unknown setting 'hiden' (did you mean 'hidden'?)"),
    ("input 5\nhidden 0 binary\noutput 2\n", "2:8: error:"),
    ("input 5\nhidden 5 binary\noutput 2\nP 0\n", "4:3: error:"),
    ("input 5\nhidden 5 binary\noutput 2\neps 0\n", "4:5: error:"),
    ("input 5\nhidden 5 binary\noutput 2\nweights [2, 1]\n", "lower bound 2 is above upper bound 1"),
    ("input 5\nhidden 5 binary\noutput 2\nP 4\n", "'P' is only used after a ReLU layer"),
    ("input 5\noutput 2\neps 0.1\neps 0.2\n", "duplicate setting 'eps' (first set at line 3)"),
    ("input 5\nhidden 5 binary\noutput 2]\n", "3:9: error: unexpected ']'"),
]


@pytest.mark.parametrize("text,message", SPEC_CASES)
def test_bad_spec(tmp_path, good_csv, text, message):
    spec = tmp_path / "bad.ann"
    spec.write_text(text)
    out = tmp_path / "out"
    code, stdout, err = run_cli("compile", "--no-start", spec, good_csv, "-o", out)
    assert code == 2
    assert message in err
    assert "^" in err and "Traceback" not in err
    assert _files(out) == []


def test_all_spec_errors_are_reported_together(tmp_path, good_csv):
    spec = tmp_path / "bad.ann"
    spec.write_text("input 0\nhiden 5 binary\nhidden 5 reul\neps -1\noutput 2\n")
    code, _, err = run_cli("compile", "--no-start", spec, good_csv, "-o", tmp_path / "out")
    assert code == 2 and "4 errors in spec" in err
    assert all(f"bad.ann:{line}:" in err for line in (1, 2, 3, 4))



def test_spec_errors_after_a_syntax_error_are_reported_together(tmp_path, good_csv):
    spec = tmp_path / "bad.ann"
    spec.write_text("input 0\nweights [-1, 1\nhidden 5 reul\nbias [0 1]\noutput 2\n")
    code, _, err = run_cli("compile", "--no-start", spec, good_csv, "-o", tmp_path / "out")
    assert code == 2 and err.endswith("4 errors in spec\n") and "Traceback" not in err
    assert [f"bad.ann:{n}:" in err for n in (1, 2, 3, 4)] == [True] * 4
    assert err.count("^") == 4 and _files(tmp_path / "out") == []


DATA_CASES = [
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,abc,1,0,1,0\n", ("row 3", "'x2'", "'abc'")),
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,1,0,1\n", ("row 3", "4 cells", "6")),
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,,1,0,1,0\n", ("row 3", "'x2'", "missing")),  # missing: the rule
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,nan,1,0,1,0\n", ("row 3", "'x2'", "missing")),
    ("x1,x2,x3,x4,x5,label\n", ("no data rows",)),
    ("", ("empty",)),
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,1,1,0,1,1\n", ("two classes",)),
    ("x1,x2,x3,x4,x5,x6,label\n1,0,1,0,1,1,1\n0,1,1,0,1,1,0\n",
     ("input 5", "6 feature columns")),
    ("x1,x2,x3,x4,x5,label\n1,0,1,0,1,1\n0,1,1,0,1,2\n0,0,0,0,0,0\n", ("output 2", "3 classes")),
]


@pytest.mark.parametrize("text,parts", DATA_CASES)
def test_bad_data(tmp_path, text, parts):
    data = tmp_path / "bad.csv"
    data.write_text(text)
    out = tmp_path / "out"
    code, _, err = run_cli("compile", "--no-start", SPECS / "xor.ann", data, "-o", out)
    assert code == 2 and "Traceback" not in err
    assert_names(err, "bad.csv", *parts)
    assert _files(out) == []


def test_small_user_m_is_refused_and_writes_nothing(tmp_path, good_csv):
    spec = tmp_path / "m.ann"
    spec.write_text("input 5\nhidden 5 binary\noutput 2\nM 2\n")
    out = tmp_path / "out"
    code, _, err = run_cli("compile", "--no-start", spec, good_csv, "-o", out)
    assert code == 2 and "rows on0: M = 2" in err and "--allow-small-m" in err
    assert _files(out) == []
    code, stdout, err = run_cli("compile", "--no-start", spec, good_csv, "-o", out, "--allow-small-m")
    assert code == 0 and "--allow-small-m" in err  # kept on request, with a warning that says so


@pytest.mark.parametrize("text,message", [
    ("", "empty"),
    ("Optimal - objective value 1\n      0 a0_0_0 1\n", "expected"),
    ("garbage that is no solution\n", "format"),
])
def test_bad_solution_file(tmp_path, text, message):
    sol = tmp_path / "bad.sol"
    sol.write_text(text)
    code, _, err = run_cli("decode", sol, "-o", tmp_path / "out")
    assert code == 2 and "bad.sol" in err and message in err and "Traceback" not in err
    assert _files(tmp_path / "out") == []


def test_missing_files(tmp_path, good_csv):
    code, _, err = run_cli("compile", "--no-start", tmp_path / "nope.ann", good_csv, "-o", tmp_path / "out")
    assert code == 2 and "nope.ann" in err and "not found" in err
    code, _, err = run_cli("compile", "--no-start", SPECS / "xor.ann", tmp_path / "nope.csv", "-o", tmp_path / "out")
    assert code == 2 and "nope.csv" in err and "not found" in err
    assert _files(tmp_path / "out") == []


def test_label_guess_with_far_more_classes_hints_at_label(tmp_path):
    """The label in the first column: the last one (numbers) gives far more classes than
    the spec's output, and the message names the column taken and suggests --label."""
    rows = ["label,a,b,c"] + [f"{i % 2},{i * 0.37 % 1:.3f},{i * 0.11 % 1:.3f},{i * 0.013:.3f}" for i in range(60)]
    csv = tmp_path / "first.csv"
    csv.write_text("\n".join(rows) + "\n")
    spec = tmp_path / "net.ann"
    spec.write_text("input 3\nhidden 2 binary\noutput 2\n")
    code, _, err = run_cli("compile", spec, csv, "-o", tmp_path / "out")
    assert code == 2 and "Traceback" not in err
    assert_names(err, "'c'", "'label'", "2 distinct values")
    assert "pass --label label" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["train", "compile"])
def test_spec_and_data_swapped_is_one_short_message(tmp_path, good_csv, command):
    spec = tmp_path / "net.ann"
    spec.write_text("input 2\nhidden 2 binary\noutput 2\n")
    code, _, err = run_cli(command, good_csv, spec, "-o", tmp_path / "out")
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "look swapped" in err and "errors in spec" not in err, err
    assert f"give {spec} {good_csv}" in err
    assert not (tmp_path / "out").exists()


def test_spec_and_data_swapped_in_python(tmp_path, good_csv):
    import annc
    from annc.core.errors import UsageError
    spec = tmp_path / "net.ann"
    spec.write_text("input 2\nhidden 2 binary\noutput 2\n")
    with pytest.raises(UsageError, match="look swapped"):
        annc.train(str(good_csv), str(spec), out_dir=tmp_path / "out")


def test_compile_accepts_quiet(tmp_path, good_csv):
    """``annc compile -q`` (as ``train -q``): the summary and the files written, no progress
    and no build lines."""
    spec = tmp_path / "net.ann"
    spec.write_text("input 5\nhidden 2 binary\noutput 2\n")
    code, out, err = run_cli("compile", "-q", "--no-start", spec, good_csv, "-o", tmp_path / "out")
    assert code == 0, err
    assert "compiled" in out and f"wrote {tmp_path / 'out' / 'net.mps'}" in out
    assert "build" not in out and "by the default recipe" not in out, out
    code, loud, _ = run_cli("compile", "--no-start", spec, good_csv, "-o", tmp_path / "out2")
    assert code == 0 and "by the default recipe" in loud
