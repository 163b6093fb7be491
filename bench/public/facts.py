"""What each set of ``bench.public.sets`` loads as, and which half of the suite it is in.

``FACTS``: set -> (rows, feature columns, classes, minority share, text columns, empty cells),
as :func:`bench.public.sets.load` returns it (the minority share: the smallest class's rows over
all rows, rounded to 3 places; empty cells: NaN cells of X).  A set with a minority share under
:data:`MINORITY` is a *minority set*: ``balanced`` and balanced accuracy are judged on those.

The two halves.  :func:`half_of` puts a set in half 0 (``tuning``) or 1 (``report``) by a fixed
hash of its name, ``int(sha256(name).hexdigest(), 16) % 2``, and ``HALVES`` records the result
literally (a test checks that the two agree), so a set cannot move between halves unnoticed.

The rule of the suite: every rule and constant of annc's model selection is chosen on the
TUNING half only; the REPORT half is run once per change and quoted as it came out (never rerun
to pick a setting, never used to choose among candidates).
"""
from __future__ import annotations

import hashlib

MINORITY = 0.10  # a set whose smallest class has fewer than this share of the rows is a minority set
HALF_NAMES = ("tuning", "report")


def half_of(name: str) -> str:
    """The half of set ``name``: ``tuning`` or ``report``, by the sha256 of its name."""
    return HALF_NAMES[int(hashlib.sha256(name.encode()).hexdigest(), 16) % 2]


# set -> (rows, feature columns, classes, minority share, text columns, empty cells)
FACTS = {
    "breast_cancer": (569, 30, 2, 0.373, (), 0),
    "wine": (178, 13, 3, 0.270, (), 0),
    "anes96": (944, 10, 2, 0.416, (), 0),
    "fair": (6366, 18, 2, 0.322, (), 0),
    "gbsg2": (557, 8, 2, 0.402, ('horTh', 'menostat', 'tgrade'), 0),
    "whas500": (500, 14, 2, 0.276, (), 0),
    "star98": (303, 12, 2, 0.353, (), 0),
    "modechoice": (210, 17, 4, 0.143, (), 0),
    "diabetes": (442, 10, 2, 0.500, (), 0),
    "titanic": (1046, 3, 2, 0.408, ('sex', 'passengerClass'), 0),
    "creditcard": (1319, 11, 2, 0.224, ('owner', 'selfemp'), 0),
    "default": (10000, 3, 2, 0.033, ('student',), 0),
    "oj": (1070, 17, 2, 0.390, ('Store7',), 0),
    "hmda": (2380, 13, 2, 0.120, ('phist', 'selfemp', 'insurance', 'condomin', 'afam', 'single', 'hschool'), 0),
    "carseats": (400, 10, 2, 0.410, ('ShelveLoc', 'Urban', 'US'), 0),
    "penguins": (333, 7, 3, 0.204, ('island', 'sex'), 0),
    "womenlf": (263, 3, 3, 0.160, ('children', 'region'), 0),
    "mroz": (753, 7, 2, 0.432, ('wc', 'hc'), 0),
    "wells": (3020, 4, 2, 0.425, ('association',), 0),
    "pima": (532, 7, 2, 0.333, (), 0),
    "digits": (1797, 64, 10, 0.097, (), 0),
    "aids_actg": (1151, 11, 2, 0.083, ('hemophil', 'ivdrug', 'karnof', 'raceth', 'sex', 'strat2', 'tx', 'txgrp'), 0),
    "biopsy": (699, 9, 2, 0.345, (), 16),
    "birthwt": (189, 8, 2, 0.312, (), 0),
    "crabs": (200, 6, 2, 0.500, ('sex',), 0),
    "fgl": (214, 9, 6, 0.042, (), 0),
    "aids2": (2843, 5, 2, 0.381, ('state', 'sex', 'T.categ'), 0),
    "survey": (236, 11, 2, 0.500, ('W.Hnd', 'Fold', 'Clap', 'Exer', 'Smoke', 'M.I'), 130),
    "melanoma": (205, 5, 3, 0.068, (), 0),
    "bacteria": (220, 4, 2, 0.195, ('ap', 'hilo', 'trt'), 0),
    "smarket": (1250, 7, 2, 0.482, (), 0),
    "caravan": (5822, 85, 2, 0.060, (), 0),
    "auto": (392, 7, 3, 0.173, (), 0),
    "college": (777, 17, 2, 0.273, (), 0),
    "wage": (3000, 8, 2, 0.306, ('maritl', 'race', 'education', 'jobclass', 'health'), 0),
    "hitters": (322, 18, 2, 0.457, ('Division',), 59),
    "arrests": (5226, 7, 2, 0.171, ('colour', 'sex', 'employed', 'citizen'), 0),
    "chile": (2532, 7, 4, 0.074, ('region', 'sex', 'education'), 107),
    "cowles": (1421, 3, 2, 0.420, ('sex',), 0),
    "salaries": (397, 5, 3, 0.161, ('discipline', 'sex'), 0),
    "wvs": (5381, 5, 3, 0.151, ('religion', 'degree', 'country', 'gender'), 0),
    "beps": (1525, 9, 3, 0.225, ('gender',), 0),
    "ornstein": (248, 3, 4, 0.069, ('sector',), 0),
    "slid": (7425, 4, 2, 0.477, ('language',), 3648),
    "affairs": (601, 8, 2, 0.250, ('gender', 'children'), 0),
    "swisslabor": (872, 6, 2, 0.460, ('foreign',), 0),
    "resumenames": (4870, 25, 2, 0.080, ('gender', 'ethnicity', 'quality', 'city', 'honors', 'volunteer', 'military', 'holes', 'school', 'email', 'computer', 'special', 'college', 'minimum', 'equal', 'wanted', 'requirements', 'reqexp', 'reqcomm', 'reqeduc', 'reqcomp', 'reqorg', 'industry'), 0),
    "bankwages": (474, 3, 3, 0.057, ('gender', 'minority'), 0),
    "nmes1988": (4406, 18, 3, 0.078, ('adl', 'region', 'afam', 'gender', 'married', 'employed', 'insurance', 'medicaid'), 0),
    "gsoep9402": (675, 11, 3, 0.295, ('gender', 'state', 'marital', 'memployment'), 0),
    "houseprices": (546, 11, 2, 0.317, ('driveway', 'recreation', 'fullbase', 'gasheat', 'prefer'), 0),
    "cps1985": (534, 10, 2, 0.180, ('ethnicity', 'region', 'gender', 'occupation', 'sector', 'married'), 0),
    "teachingratings": (463, 10, 2, 0.220, ('minority', 'gender', 'credits', 'division', 'native'), 0),
    "healthinsurance": (8802, 10, 2, 0.199, ('health', 'limit', 'gender', 'married', 'selfemp', 'region', 'ethnicity', 'education'), 0),
    "collegedistance": (4739, 13, 2, 0.387, ('gender', 'ethnicity', 'fcollege', 'mcollege', 'home', 'urban', 'income', 'region'), 0),
    "doctorvisits": (5190, 11, 2, 0.202, ('gender', 'private', 'freepoor', 'freerepat', 'nchronic', 'lchronic'), 0),
    "fishing": (1182, 9, 4, 0.113, (), 0),
    "yogurt": (2412, 8, 4, 0.029, (), 0),
    "benefits": (4877, 15, 2, 0.316, ('joblost', 'nwhite', 'school12', 'sex', 'smsa', 'married', 'dkids', 'dykids', 'head'), 0),
    "train_choice": (2929, 8, 2, 0.497, (), 0),
    "commute_mode": (453, 8, 4, 0.071, (), 0),
    "skulls": (150, 4, 5, 0.200, (), 0),
    "iris": (150, 4, 3, 0.333, (), 0),
    "infert": (248, 5, 2, 0.335, ('education',), 0),
    "solder": (900, 5, 2, 0.317, ('Opening', 'Solder', 'Mask', 'PadType'), 0),
    "stagec": (146, 6, 2, 0.370, ('ploidy',), 12),
    "pbc": (418, 17, 3, 0.060, ('sex',), 1033),
    "nwtco": (4028, 5, 2, 0.142, (), 0),
    "flchain": (7874, 8, 2, 0.275, ('sex',), 1350),
    "spam7": (4601, 6, 2, 0.394, (), 0),
    "ais": (202, 12, 2, 0.495, ('sport',), 0),
    "frogs": (212, 9, 2, 0.373, (), 0),
    "leafshape": (286, 4, 6, 0.031, (), 0),
    "mifem": (1295, 9, 2, 0.248, ('premi', 'smstat', 'diabetes', 'highbp', 'hichol', 'angina', 'stroke'), 0),
    "credit_data": (4454, 13, 2, 0.282, ('Home', 'Marital', 'Records', 'Job'), 455),
    "mlc_churn": (5000, 18, 2, 0.141, ('area_code', 'international_plan', 'voice_mail_plan'), 0),
    "hpc_data": (4331, 7, 4, 0.060, ('protocol', 'day'), 0),
    "cells": (2019, 56, 2, 0.356, (), 0),
    "lending_club": (9857, 20, 2, 0.052, ('term', 'verification_status', 'emp_length'), 0),
    "wa_churn": (7043, 19, 2, 0.265, ('multiple_lines', 'internet_service', 'online_security', 'online_backup', 'device_protection', 'tech_support', 'streaming_tv', 'streaming_movies', 'contract', 'payment_method'), 11),
    "attrition": (1470, 30, 2, 0.161, ('BusinessTravel', 'Department', 'Education', 'EducationField', 'EnvironmentSatisfaction', 'Gender', 'JobInvolvement', 'JobRole', 'JobSatisfaction', 'MaritalStatus', 'OverTime', 'PerformanceRating', 'RelationshipSatisfaction', 'WorkLifeBalance'), 0),
    "email": (3921, 19, 2, 0.094, ('winner', 'number'), 0),
}

# set -> half, recorded literally: what half_of says (tests/bench/test_bench_public.py checks it)
HALVES = {
    "breast_cancer": "tuning", "wine": "tuning", "anes96": "tuning", "fair": "tuning", "gbsg2": "tuning", "whas500": "tuning",
    "modechoice": "tuning", "creditcard": "tuning", "hmda": "tuning", "womenlf": "tuning", "pima": "tuning", "digits": "tuning",
    "biopsy": "tuning", "crabs": "tuning", "fgl": "tuning", "survey": "tuning", "college": "tuning", "wage": "tuning",
    "arrests": "tuning", "chile": "tuning", "ornstein": "tuning", "swisslabor": "tuning", "gsoep9402": "tuning", "houseprices": "tuning",
    "cps1985": "tuning", "teachingratings": "tuning", "healthinsurance": "tuning", "doctorvisits": "tuning", "fishing": "tuning", "train_choice": "tuning",
    "commute_mode": "tuning", "skulls": "tuning", "infert": "tuning", "solder": "tuning", "stagec": "tuning", "flchain": "tuning",
    "ais": "tuning", "frogs": "tuning", "mifem": "tuning", "credit_data": "tuning", "attrition": "tuning", "email": "tuning",
    "star98": "report", "diabetes": "report", "titanic": "report", "default": "report", "oj": "report", "carseats": "report",
    "penguins": "report", "mroz": "report", "wells": "report", "aids_actg": "report", "birthwt": "report", "aids2": "report",
    "melanoma": "report", "bacteria": "report", "smarket": "report", "caravan": "report", "auto": "report", "hitters": "report",
    "cowles": "report", "salaries": "report", "wvs": "report", "beps": "report", "slid": "report", "affairs": "report",
    "resumenames": "report", "bankwages": "report", "nmes1988": "report", "collegedistance": "report", "yogurt": "report", "benefits": "report",
    "iris": "report", "pbc": "report", "nwtco": "report", "spam7": "report", "leafshape": "report", "mlc_churn": "report",
    "hpc_data": "report", "cells": "report", "lending_club": "report", "wa_churn": "report",
}


def minority_sets() -> list[str]:
    return [n for n, f in FACTS.items() if f[3] < MINORITY]


def multiclass_sets() -> list[str]:
    return [n for n, f in FACTS.items() if f[2] > 2]


def in_half(half: str) -> list[str]:
    """The sets of ``half`` (``tuning``, ``report`` or ``both``), in ``FACTS`` order."""
    return [n for n in FACTS if half == "both" or HALVES[n] == half]
