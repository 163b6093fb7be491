"""CSV loading: located error messages, class order, label choice, class mapping."""
import hashlib
from pathlib import Path

import numpy as np
import pytest

from annc.io.csvcells import MAX_REPORTED
from annc.io.data import load_data
from annc.io.datacheck import check_against_spec
from annc.core.errors import DataError
from annc.io.spec import parse_spec
from conftest import assert_names

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
    assert_names(data_error(path, label="lable"), "'lable'", "'label'", "a, b, label")


def test_classes_mapping(write):
    d = load_data(write("a,label\n1,1\n2,1\n"), classes=[0, 1])
    assert d.classes == [0, 1]
    np.testing.assert_array_equal(d.y, [1, 1])  # one class present is fine for a test set
    d = load_data(write("a,label\n1,cat\n2,dog\n"), classes=["dog", "cat"])
    np.testing.assert_array_equal(d.y, [1, 0])


def test_label_outside_classes(write):
    path = write("a,label\n1,0\n2,2\n3,1\n")
    assert_names(data_error(path, classes=[0, 1]), "row 3", "'label'", "'2'", "0, 1")


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_non_numeric_cell(write):
    path = write("x1,x2,x3,label\n" + "0,0,0,0\n" * 5 + "1,1,abc,1\n")
    assert_names(data_error(path), "row 7", "'x3'", "'abc'")


def test_empty_cell(write):
    """A missing feature cell is the missing-values error (annc.core.missing); an empty label
    cell is an error of its own (nothing can fill a label)."""
    path = write("x1,x2,label\n1,,0\n1,2,1\n")
    assert_names(data_error(path), "missing cell", "row 2", "'x2'")
    path = write("x1,x2,label\n1,1,0\n1,2,\n")
    assert_names(data_error(path), "row 3", "'label'", "empty")


def test_nan_and_inf(write):
    path = write("label,x1,x2\n0,2,1\n1,1,-inf\n")
    assert_names(data_error(path, label="label"), "row 3", "'x2'", "'-inf'")
    path = write("label,x1,x2\n0,nan,1\n1,1,2\n")
    assert "in column 'x1' (1 row)" in data_error(path, label="label")


def test_ragged_row(write):
    path = write("a,b,c,d,e,label\n1,2,3,4,5,0\n1,2,3,4,5,1\n1,2,3,4,5,0\n1,2,3,1\n")
    assert_names(data_error(path), "row 5", "4 cells", "6")


def test_empty_file(write):
    path = write("")
    assert_names(data_error(path), "empty")
    assert_names(data_error(write("\n\n", "blank.csv")), "empty")


def test_header_only(write):
    path = write("a,b,label\n")
    assert_names(data_error(path), "no data rows")


def test_single_class(write):
    path = write("a,label\n" + "0,1\n" * 40)
    assert_names(data_error(path), "40 rows", "label 1", "two classes")


def test_missing_file(tmp_path):
    path = tmp_path / "nope.csv"
    assert data_error(path) == f"{path}: data file not found"


def test_bad_header(write):
    path = write("a,,a,label\n1,2,3,0\n")
    first, second = data_error(path).splitlines()
    assert_names(first, f"{path}: ", "column 2", "empty column name")
    assert_names(second, f"{path}: ", "column 3", "duplicate", "'a'", "column 1")
    path = write("a;b;label\n1;2;0\n", "semi.csv")
    assert "(annc reads comma-separated files)" in data_error(path)


def test_many_errors_are_capped(write):
    path = write("a,label\n" + "x,0\n" * 25 + "1,1\n")
    lines = data_error(path).splitlines()
    assert len(lines) == MAX_REPORTED + 2  # the column's headline, the cells, how many more
    assert_names(lines[0], "'a'", "25 of 26", "'x' (25)")
    assert_names(lines[1], "row 2", "'a'", "'x'")
    assert lines[-1] == f"{path}: ... and 5 more"


def test_row_numbers_count_blank_lines_and_quoted_newlines(write):
    path = write('a,label\n1,"x\ny"\n\n1,0\nq,1\n')
    assert_names(data_error(path), "row 6", "'a'", "'q'")


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
    message = str(info.value)
    assert message.startswith("xor.ann:1:1: ")  # located at the spec's input line
    assert_names(message, "input 5", str(path), "6 feature columns")


def test_check_against_spec_classes():
    with pytest.raises(DataError) as info:
        check_against_spec(spec(inputs=3, classes=3), load_data(SAMPLE))
    message = str(info.value)
    inputs, outputs = message.split("\nxor.ann:3:1: ")  # both errors, each located at its line
    assert inputs.startswith("xor.ann:1:1: ")
    assert_names(inputs, "input 3", str(SAMPLE), "5 feature columns")
    assert_names(outputs, "output 3", "2 classes", "0, 1")


def test_check_against_spec_without_positions_names_the_spec():
    from annc.io.spec import LayerSpec, NetworkSpec
    built = NetworkSpec(3, (), LayerSpec(2, "linear"))  # built in Python: no text, no positions
    with pytest.raises(DataError) as info:
        check_against_spec(built, load_data(SAMPLE))
    assert str(info.value).startswith("<spec>: ")
    assert_names(str(info.value), "input 3", str(SAMPLE), "5 feature columns")


def test_check_against_spec_uses_given_classes():
    data = load_data(SAMPLE, classes=[0, 1, 2])
    with pytest.raises(DataError, match=r"3 classes.*: 0, 1, 2"):
        check_against_spec(spec(), data)
