"""CSV loading: located error messages, class order, label choice, class mapping."""
import hashlib
from pathlib import Path

import numpy as np
import pytest

from annc.io.data import MAX_REPORTED, load_data
from annc.io.datacheck import check_against_spec
from annc.core.errors import DataError
from annc.io.spec import parse_spec

SAMPLE = Path(__file__).resolve().parents[2] / "specs" / "xor_sample.csv"


@pytest.fixture
def write(tmp_path):
    """write(text, name="d.csv") -> path of a file with that text."""
    def _write(text, name="d.csv"):
        path = tmp_path / name
        path.write_text(text)
        return path
    return _write


def data_error(path, **kwargs) -> str:
    with pytest.raises(DataError) as info:
        load_data(path, **kwargs)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


# ---------------------------------------------------------------------------
# The sample and the happy path
# ---------------------------------------------------------------------------

def test_xor_sample():
    d = load_data(SAMPLE)
    assert d.X.shape == (40, 5) and d.X.dtype == float
    assert d.y.shape == (40,) and d.y.dtype.kind == "i"
    assert d.classes == [0, 1]
    assert d.features == ["x1", "x2", "x3", "x4", "x5"]
    assert d.label == "label"
    assert d.path == str(SAMPLE)
    assert set(np.unique(d.X)) <= {0.0, 1.0}
    parity = (d.X[:, 0] + d.X[:, 2] + d.X[:, 4]) % 2
    assert (parity != d.y).sum() == 4  # 10% label noise


def test_sha256_is_of_file_bytes(write):
    path = write("a,b,label\n1,2,0\n3,4,1\n")
    assert load_data(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_values_and_blank_lines(write):
    path = write("a, b ,label\n1.5,-2e1,1\n\n 3 ,4,0\n")
    d = load_data(path)
    assert d.features == ["a", "b"]
    np.testing.assert_array_equal(d.X, [[1.5, -20.0], [3.0, 4.0]])
    np.testing.assert_array_equal(d.y, [1, 0])


def test_integer_labels_sort_numerically(write):
    d = load_data(write("a,label\n1,10\n2,2\n3,-1\n4,2\n"))
    assert d.classes == [-1, 2, 10]
    np.testing.assert_array_equal(d.y, [2, 1, 0, 1])


def test_string_labels_sort_as_strings(write):
    d = load_data(write("a,label\n1,dog\n2,cat\n3,10\n4,2\n"))
    assert d.classes == ["10", "2", "cat", "dog"]
    np.testing.assert_array_equal(d.y, [3, 2, 0, 1])


def test_label_column_choice(write):
    d = load_data(write("kind,a,b\nx,1,2\ny,3,4\n"), label="kind")
    assert d.label == "kind" and d.features == ["a", "b"]
    assert d.classes == ["x", "y"]
    np.testing.assert_array_equal(d.X, [[1, 2], [3, 4]])


def test_unknown_label_column_lists_columns(write):
    path = write("a,b,label\n1,2,0\n3,4,1\n")
    assert data_error(path, label="lable") == (
        f"{path}: no column named 'lable' (did you mean 'label'?); "
        "the columns are: a, b, label")


def test_classes_mapping(write):
    d = load_data(write("a,label\n1,1\n2,1\n"), classes=[0, 1])
    assert d.classes == [0, 1]
    np.testing.assert_array_equal(d.y, [1, 1])  # one class present is fine for a test set
    d = load_data(write("a,label\n1,cat\n2,dog\n"), classes=["dog", "cat"])
    np.testing.assert_array_equal(d.y, [1, 0])


def test_label_outside_classes(write):
    path = write("a,label\n1,0\n2,2\n3,1\n")
    assert data_error(path, classes=[0, 1]) == (
        f"{path}: row 3, column 'label' (2): label '2' is not one of the classes 0, 1")


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_non_numeric_cell(write):
    path = write("x1,x2,x3,label\n" + "0,0,0,0\n" * 5 + "1,1,abc,1\n")
    assert data_error(path) == f"{path}: row 7, column 'x3' (3): 'abc' is not a number"


def test_empty_cell(write):
    """A missing feature cell is the missing-values error (annc.core.missing); an empty label
    cell is an error of its own (nothing can fill a label)."""
    path = write("x1,x2,label\n1,,0\n1,2,1\n")
    assert data_error(path).startswith(
        f"{path}: 1 of 2 rows have a missing cell (empty, NA or NaN; row 2) in column 'x2' (1 row). ")
    path = write("x1,x2,label\n1,1,0\n1,2,\n")
    assert data_error(path) == f"{path}: row 3, column 'label' (3): empty cell"


def test_nan_and_inf(write):
    path = write("label,x1,x2\n0,2,1\n1,1,-inf\n")
    assert data_error(path, label="label") == f"{path}: row 3, column 'x2' (3): '-inf' is not a finite number"
    path = write("label,x1,x2\n0,nan,1\n1,1,2\n")
    assert "in column 'x1' (1 row)" in data_error(path, label="label")


def test_ragged_row(write):
    path = write("a,b,c,d,e,label\n1,2,3,4,5,0\n1,2,3,4,5,1\n1,2,3,4,5,0\n1,2,3,1\n")
    assert data_error(path) == f"{path}: row 5 has 4 cells, the header has 6"


def test_empty_file(write):
    path = write("")
    assert data_error(path) == (
        f"{path}: the file is empty (expected a header line and data rows)")
    assert "the file is empty" in data_error(write("\n\n", "blank.csv"))


def test_header_only(write):
    path = write("a,b,label\n")
    assert data_error(path) == f"{path}: no data rows (only the header)"


def test_single_class(write):
    path = write("a,label\n" + "0,1\n" * 40)
    assert data_error(path) == (
        f"{path}: all 40 rows have label 1; training needs at least two classes")


def test_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    assert data_error(path) == f"{path}: data file not found"


def test_bad_header(write):
    path = write("a,,a,label\n1,2,3,0\n")
    assert data_error(path) == (
        f"{path}: row 1, column 2: empty column name in the header\n"
        f"{path}: row 1, column 3: duplicate column name 'a' (also column 1)")
    path = write("a;b;label\n1;2;0\n", "semi.csv")
    assert "(annc reads comma-separated files)" in data_error(path)


def test_many_errors_are_capped(write):
    path = write("a,label\n" + "x,0\n" * 25 + "1,1\n")
    lines = data_error(path).splitlines()
    assert len(lines) == MAX_REPORTED + 1
    assert lines[0] == f"{path}: row 2, column 'a' (1): 'x' is not a number"
    assert lines[-1] == f"{path}: ... and 5 more"


def test_row_numbers_count_blank_lines_and_quoted_newlines(write):
    path = write('a,label\n1,"x\ny"\n\n1,0\nq,1\n')
    assert data_error(path) == f"{path}: row 6, column 'a' (1): 'q' is not a number"


# ---------------------------------------------------------------------------
# check_against_spec
# ---------------------------------------------------------------------------

def spec(inputs=5, classes=2):
    return parse_spec(f"input {inputs}\nhidden 5 binary\noutput {classes}\n", "xor.ann")


def test_check_against_spec_ok():
    check_against_spec(spec(), load_data(SAMPLE))


def test_check_against_spec_features(write):
    path = write("a,b,c,d,e,f,label\n" + "1,2,3,4,5,6,0\n1,2,3,4,5,6,1\n", "data.csv")
    with pytest.raises(DataError) as info:
        check_against_spec(spec(), load_data(path))
    assert str(info.value) == (
        f"xor.ann:1:1: error: the spec says input 5 but {path} has 6 feature columns "
        "(1 more than the spec)\n"
        "    input 5\n"
        "    ^")


def test_check_against_spec_classes():
    with pytest.raises(DataError) as info:
        check_against_spec(spec(inputs=3, classes=3), load_data(SAMPLE))
    assert str(info.value) == (
        f"xor.ann:1:1: error: the spec says input 3 but {SAMPLE} has 5 feature columns "
        "(2 more than the spec)\n"
        "    input 3\n"
        "    ^\n"
        f"xor.ann:3:1: error: the spec says output 3 but {SAMPLE} has 2 classes "
        "(1 fewer than the spec): 0, 1\n"
        "    output 3\n"
        "    ^")


def test_check_against_spec_without_positions_names_the_spec():
    from annc.io.spec import LayerSpec, NetworkSpec
    built = NetworkSpec(3, (), LayerSpec(2, "linear"))  # built in Python: no text, no positions
    with pytest.raises(DataError) as info:
        check_against_spec(built, load_data(SAMPLE))
    assert str(info.value) == (
        f"<spec>: the spec says input 3 but {SAMPLE} has 5 feature columns (2 more than the spec)")


def test_check_against_spec_uses_given_classes():
    data = load_data(SAMPLE, classes=[0, 1, 2])
    with pytest.raises(DataError, match=r"has 3 classes \(1 more than the spec\): 0, 1, 2"):
        check_against_spec(spec(), data)
