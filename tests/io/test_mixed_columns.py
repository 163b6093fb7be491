"""A column that mixes numbers and words: read as numbers (a column is text only when none of its
cells is a number), so its words are refused, and the error says so first, naming the column, how
many cells are words and the commonest of them; from a CSV (exit 2, nothing written) and from a
table in Python alike."""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from annc.app.api import as_data
from annc.core.errors import DataError
from conftest import assert_names


def test_a_table_in_python_names_the_mixed_column_first():
    X = pd.DataFrame({"a": range(6), "minimum": ["none", "some", "2", "3", "none", "5"]})
    with pytest.raises(DataError) as e:
        as_data((X, [0, 1, 0, 1, 0, 1]))
    first = str(e.value).splitlines()[0]
    assert_names(first, "'minimum'", "3 of 6", "'none' (2)", "'some' (1)")


def test_a_csv_names_the_mixed_column_first_and_writes_nothing(tmp_path):
    csv = tmp_path / "mixed.csv"
    csv.write_text("a,minimum,y\n1,none,0\n2,some,1\n3,2,0\n4,3,1\n5,none,0\n6,5,1\n")
    spec = tmp_path / "m.ann"
    spec.write_text("input auto\nhidden 2 binary\noutput 2\n")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "annc.app.cli", "train", str(spec), str(csv), "--time-limit", "5",
                           "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert_names(first, "mixed.csv", "'minimum'", "3 of 6", "'none' (2)")
    assert not out.exists()
