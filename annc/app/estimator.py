"""A scikit-learn classifier over annc: :class:`MIPNetClassifier`.

``annc.MIPNetClassifier`` (bound on first use by the package's PEP 562 ``__getattr__``,
so that ``import annc`` never imports scikit-learn) builds the training request of
:func:`annc.app.api.train_request` and runs it (:func:`annc.training.dispatch.run`), as ``annc.train`` does:
``fit`` writes a ``.ann`` spec from the estimator's parameters, trains the network by
solving its training MIP, and keeps the decoded, verified network.  It needs the
optional extra ``pip install "annc[sklearn]"`` (scikit-learn >= 1.6).

Input checks are scikit-learn's own (``validate_data``, ``check_classification_targets``):
infinite values, sparse matrices, complex numbers, empty or wrongly shaped arrays
and continuous (regression) targets raise the ``ValueError`` / ``TypeError`` the
scikit-learn estimator checks expect, before annc is called.  NaN (a missing cell) is
annc's: the rule ``missing`` (:mod:`annc.core.missing`), by default
:class:`annc.core.errors.MissingValuesError`, which is also the ``ValueError`` the checks
expect.  Everything after that
(a spec the parameters make invalid, a solver that finds no solution, ...) is one of
annc's own errors (:class:`annc.core.errors.AnncError`: ``SpecError``, ``UsageError``,
``NoSolutionError``, ...), propagated unchanged.

**Column names.**  Fitted on a data frame, the estimator keeps scikit-learn's
``feature_names_in_`` and the network records them (:class:`annc.core.columns.Columns`, so
every weights file saved from ``network_`` has them).  ``predict`` and
``decision_function`` take a data frame with the same columns in any order and read
them by name, as annc's own readers do; scikit-learn's estimators refuse another order
instead (its ``check_dataframe_column_names_consistency``, which
``parametrize_with_checks`` does not run, expects that refusal).  A missing or an extra
column is scikit-learn's own ``ValueError``.

**Estimator checks.**  ``tests/app/test_estimator.py`` runs every check of
``sklearn.utils.estimator_checks.parametrize_with_checks`` on the output-layer-only
model with the hinge loss (``hidden_layer_sizes=(), loss="hinge"``): an LP, which HiGHS
solves in milliseconds on every data set of the checks (all of them take about a
second), so that refitting gives the same network (the checks compare predictions of
repeated fits).  The default recipe (``loss errors``, ``penalty l0 0.5``: a binary per
sample and weight) is not used there: it does not prove optimality on the checks' data
sets within seconds, and a fit stopped by a time limit is only as repeatable as the
machine's timing (below); the paper's ``nll`` was tried too: on ``check_classifiers_train``'s
300 samples of 3 classes HiGHS found nothing better than the constant network in 30 s
(accuracy 1/3 < 0.83).  No check is skipped or expected to fail: the dict
``EXPECTED_FAILED_CHECKS`` in the test module is empty, and any check that must be skipped
later goes there with its reason, and in this docstring.  (scikit-learn itself skips
``check_array_api_input`` and ``check_classifier_data_not_an_array`` when
``SCIPY_ARRAY_API`` is unset or pandas is missing.)

**Determinism.**  HiGHS is deterministic, and so is annc's model; two fits on the same
data give the same network when the solver proves optimality.  A fit stopped by
``time_limit`` keeps the incumbent found by then, which depends on the machine's speed;
model selection takes at most 60% of ``time_limit`` (on real data), and annc's own search
for the network (start pool, local and neighbourhood search) at most 75% of what is left:
such fits are only as repeatable as the timing.
``status_`` says which case a fit was (``"optimal"`` or ``"feasible"``).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data  # scikit-learn >= 1.6

from ..core.categories import check_unknown
from ..core.columns import Columns, all_numbers, column_differences, frame_columns
from ..core.errors import UsageError
from ..core.inputs import input_matrix
from ..core.missing import check_rule
from ..core.rowweights import indexed_class_weight
from ..training.dispatch import run
from .api import table_data, train_request
from .estimator_spec import hidden_sizes, spec_text

__all__ = ["MIPNetClassifier"]


class MIPNetClassifier(ClassifierMixin, BaseEstimator):
    """A small dense network trained to optimality by a mixed-integer program (annc).

    ``fit(X, y)`` writes the network as a ``.ann`` spec (``input d``, one ``hidden``
    line per entry of ``hidden_layer_sizes``, ``output k`` for the k classes, then the
    optional settings below and ``extra``), builds the training problem on ``(X, y)``
    as a MIP (Patil and Mintz: binary activations, big-M rows, the loss as the
    objective), solves it with ``solver`` (HiGHS by default) and decodes the weights.
    annc then runs the decoded network forward on the training data to verify it, and
    judges what is proven about it: ``status_`` is ``"optimal"`` when the network's
    own training objective meets the solver's lower bound (within ``gap``), else
    ``"feasible"`` (for example stopped at ``time_limit``).  The full verdict is
    ``result_.verdict``.  A solver that finds no network raises
    :class:`annc.core.errors.NoSolutionError`.

    The network's inputs are scaled by annc itself (``scale``), fitted on the training
    data and stored in the network, so raw features go in at ``predict`` time.

    There is no ``predict_proba``: the network's output scores are not probabilities.
    The MIP's losses (``nll``'s margins to the best score, ``hinge``, counted
    ``errors``) constrain and minimise score *differences* inside the weight box; they
    are not likelihoods, and no calibration is implied.  Use ``decision_function`` for
    the raw scores.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, or int, default=(4,)
        Width of each hidden layer, in order (as in ``MLPClassifier``); ``()`` is the
        output-layer-only model (a linear classifier; nearly an LP, solved fast).
    activation : {"binary", "relu", "sign"}, default="binary"
        Activation of every hidden layer (:data:`annc.core.activations.HIDDEN`).
    loss : {"nll", "errors", "hinge"} or None, default=None
        The MIP's objective; None keeps the spec's default recipe (``loss errors`` with
        ``penalty l0 0.5`` unless ``penalty`` is given, and the eps chosen on the training data
        unless ``extra`` names one: :func:`annc.training.warmstart.margin.default_eps`; see the
        documentation's page "Real data").
    margin : float or None, default=None
        Margin of the hinge loss (``loss hinge <margin>``): with ``loss="hinge"``, or
        with ``loss=None``, which it then makes the hinge loss (None: annc's default
        margin, 1).
    penalty : {"none", "l1", "l0"} or None, default=None
        Parsimony penalty on the weights (``penalty l1 X`` / ``penalty l0 X``); None
        keeps the spec's default: with ``loss=None`` the default recipe's ``l0 0.5``, whose
        weight model selection may choose on real data (see ``select``); with a loss named,
        no penalty.
    penalty_weight : float or None, default=None
        X of the penalty; required with ``penalty="l1"`` or ``"l0"`` (a word, such as
        ``"auto"`` where the spec language takes one, is written as is).
    max_weights : int or None, default=None
        At most this many non-zero weights (``max_weights K``: a row over the l0 penalty's
        indicators; needs the l0 penalty, the default recipe's or ``penalty="l0"``).  None: no
        budget of your own (cross-validation sets one where the penalty is left open).
    scale : {"minmax", "standard", "none"} or None, default=None
        annc's input scaling, fitted on the training data; None keeps the spec's
        default (``minmax``).  The weight and bias boxes apply to scaled features.
    weights : pair (lo, hi) or None, default=None
        Box of every weight (``weights [lo, hi]``); None keeps ``[-1, 1]``.
    time_limit : float, default=60.0
        Seconds for the whole fit, as ``annc train --time-limit``: model selection, annc's
        own search, the solver on the full MIP and annc's lower bounds share it (greedy
        training: per layer).
    solver : str, default="highs"
        A solver annc drives (highs, cbc, scip, glpk, gurobi, cplex, xpress).
    threads : int or None, default=None
        Solver threads (None: the solver's default).
    gap : float or None, default=None
        Relative optimality gap at which the solver may stop, and at which annc calls a
        network optimal (None: annc's default, 1e-4); above 1e-4 an ``"optimal"`` network is
        optimal within that gap, not proven (``result_.verdict.proven`` tells them apart).
    solver_options : dict or None, default=None
        The solver's own options, passed through as ``--solver-option NAME=VALUE`` does, to the
        full MIP and to annc's own sub-MIPs on that solver (e.g. ``{"mip_heuristic_effort": 0.3}``).
    stall : bool or int, default=True
        End the full MIP once its solver's work (HiGHS's, SCIP's and Gurobi's work checks) moves neither
        the incumbent nor the bound for a stretch scaled by the model
        (:mod:`annc.training.mip.stalling`); False never; a whole number, that many work checks.
    workers : int or None, default=None
        A local Dask cluster of this many worker processes for the folds of cross-validation and,
        above 10,000 distinct rows, the large-data path's clustering and annealed seeds (the same
        network as without; ``--workers``).
    scheduler : str or None, default=None
        The address of a running Dask scheduler to use instead (``--scheduler``).
    extra : str, default=""
        Further ``.ann`` lines appended verbatim to the spec (e.g. ``"eps 0.05\\nbias
        [-2, 2]"``), for any setting without a parameter here.
    missing : {"error", "drop", "impute"}, default="error"
        Missing cells of ``X`` (NaN, None, ``pandas.NA``; :mod:`annc.core.missing`): ``"error"``
        raises :class:`annc.core.errors.MissingValuesError` (a ``ValueError``) naming the
        columns and the rows; ``"drop"`` fits on the other rows; ``"impute"`` fills each with
        its column's median (numbers) or most frequent category (text) on the training rows,
        which the network records and ``predict`` applies.  Without fills, a missing cell at
        ``predict`` is the same error.
    unknown : {"ignore", "error"}, default="ignore"
        A category of a text column not seen in ``fit``, at ``predict``: ``"ignore"`` reads it as
        all zeros with one :class:`annc.core.errors.UnknownCategoryWarning` per column, as
        ``OneHotEncoder(handle_unknown="ignore")`` (so ``cross_val_score`` runs when a rare
        category is in one fold only); ``"error"`` raises :class:`annc.core.errors.DataError`.
    class_weight : "balanced", dict or None, default=None
        A sample weighs its class's weight times its ``sample_weight`` in the objective
        (scikit-learn's convention, :mod:`annc.core.rowweights`); a bad one is a ``UsageError``.
    select : bool or None, default=None
        Model selection (:mod:`annc.training.modelselect.cvselect`): None chooses what the spec leaves open
        (with ``loss=None`` and no ``penalty``: the l0 weight and the width up to
        ``hidden_layer_sizes``) by k-fold cross-validation on real data (at least 64 distinct
        rows), within ``time_limit``; False trains the defaults as written; True also selects on
        smaller data.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels (any type: the network is trained on their indices).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Feature names, when ``X`` had string column names (a data frame); the network
        records them (``network_.columns``), and ``predict`` and ``decision_function``
        take a data frame with these columns in any order (found by name).  A missing or
        an extra column is scikit-learn's ``ValueError``.
    network_ : annc.core.network.TrainedNetwork
        The trained, verified network (with its input scaling).
    result_ : annc.training.results.TrainResult
        Everything annc reports about the run (``verdict``, ``train_accuracy``, ``steps``).
    status_ : str
        The verdict's status: ``"optimal"`` (proven) or ``"feasible"``.
    n_nonzero_weights_ : int
        Number of non-zero weights of the network.
    spec_ : str
        The ``.ann`` text that was trained.
    cv_results_ : dict or None
        The cross-validated path in scikit-learn's layout (``params``, ``param_width``,
        ``param_penalty_weight``, ``split<k>_test_score``, ``mean_test_score``,
        ``std_test_score``, ``rank_test_score``, the same for ``train``, and
        ``mean_nonzero_weights``), when cross-validation chose the setting; else None.
    best_params_ : dict or None
        The setting cross-validation chose (the best CV accuracy, ties to the fewest weights), with
        the weight budget of the final training (``max_weights``) where it set one; or None.
    """

    def __init__(self, *, hidden_layer_sizes=(4,), activation="binary", loss=None, margin=None, penalty=None,
                 penalty_weight=None, max_weights=None, scale=None, weights=None, time_limit=60.0, solver="highs",
                 threads=None, gap=None, solver_options=None, extra="", select=None, stall=True, workers=None,
                 scheduler=None, missing="error", unknown="ignore", class_weight=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.loss = loss
        self.margin = margin
        self.penalty = penalty
        self.penalty_weight = penalty_weight
        self.max_weights = max_weights
        self.scale = scale
        self.weights = weights
        self.time_limit = time_limit
        self.solver = solver
        self.threads = threads
        self.gap = gap
        self.solver_options = solver_options
        self.extra = extra
        self.select = select
        self.stall = stall
        self.workers = workers
        self.scheduler = scheduler
        self.missing = missing
        self.unknown = unknown
        self.class_weight = class_weight

    # -- scikit-learn -----------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Train the network on ``(X, y)`` (``X``: n_samples x n_features, ``y``: labels of at least
        two classes; ``sample_weight``: None or one weight >= 0 per sample, checked by scikit-learn,
        a sample of weight 0 left out) by solving its training MIP.  Returns ``self``, with
        ``network_``, ``result_``, ``status_`` (``"optimal"`` or ``"feasible"``) and the other
        fitted attributes.  annc's errors (:class:`annc.core.errors.AnncError`) propagate."""
        text = frame_columns(X) is not None and not all_numbers(X)  # a data frame with text columns
        # NaN (missing cells) are annc's to handle, by the rule `missing` (annc.core.missing); inf is scikit-learn's
        X, y = validate_data(self, X, y, accept_sparse=False, dtype=None if text else np.float64, ensure_min_samples=1,
                             ensure_all_finite="allow-nan")
        names = getattr(self, "feature_names_in_", None)  # set by validate_data for a data frame
        # Columns refuses repeated names: now, not after the training
        names = None if names is None else list(Columns(tuple(str(n) for n in names)).features)
        check_classification_targets(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            keep = sample_weight > 0
            X, y, sample_weight = X[keep], np.asarray(y)[keep], sample_weight[keep]
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes in the data, "
                             f"but the data contain only one class: {classes[0]!r}")
        # one-hot encoded (annc.core.categories), missing cells dropped or imputed: the network records both
        data = table_data(np.asarray(X, dtype=object) if text else X, y_index.astype(np.int64).reshape(-1), names,
                          classes=list(range(len(classes))), name="X", missing=check_rule(self.missing))
        spec = spec_text(self, data.inputs, len(classes))
        if self.select is not None and not isinstance(self.select, (bool, np.bool_)):
            raise UsageError(f"select must be None, True or False, not {self.select!r}")
        select = None if self.select is None else bool(self.select)
        result = run(train_request(spec, data, time_limit=self.time_limit, solver=self.solver, threads=self.threads,
                                   gap=self.gap, solver_options=self.solver_options, stall=self.stall, out_dir=None,
                                   select=select, workers=self.workers, scheduler=self.scheduler,
                                   class_weight=indexed_class_weight(self.class_weight, list(classes.tolist())),
                                   sample_weight=sample_weight))
        network = result.network
        # the weights files it saves record the names and fills (a label name is not the estimator's to know)
        network.columns = None if data.columns is None else replace(data.columns, label=None)
        # the network's classes are the indices 0..k-1 (annc sorts integer labels numerically)
        order = [int(c) for c in network.classes]
        if order != list(range(len(classes))):
            raise RuntimeError(f"annc returned the classes {network.classes!r}, not the indices 0..{len(classes) - 1}")
        self.classes_, self.spec_, self.network_, self.result_ = classes, spec, network, result
        self.status_ = str(getattr(result.status, "value", result.status))
        self.n_nonzero_weights_ = int(network.nonzero_weights())
        chosen = result.selection  # a Chosen (annc.training.modelselect.chosen) or None
        self.cv_results_ = None if chosen is None else chosen.cv_results()
        self.best_params_ = None if chosen is None else chosen.best_params()
        return self

    def _in_fit_order(self, X):
        """A data frame ``X`` with the columns seen in ``fit`` in another order: the same
        columns in fit's order (found by name, :func:`annc.core.columns.column_differences`).
        Anything else as it is: scikit-learn's own check then says what does not match."""
        names, fitted = frame_columns(X), getattr(self, "feature_names_in_", None)
        if names is None or fitted is None or names == list(fitted) or any(column_differences(names, fitted)):
            return X
        return X[list(fitted)]

    def _scores(self, X) -> np.ndarray:
        check_is_fitted(self, "network_")
        columns = getattr(self.network_, "columns", None)
        text = columns is not None and bool(columns.categories)  # text columns: raw cells, encoded by the network
        X = validate_data(self, self._in_fit_order(X), reset=False, accept_sparse=False,
                          dtype=None if text else np.float64, ensure_all_finite="allow-nan")
        if text:  # raw cells, encoded here: an unseen category as `unknown` says (a missing cell: annc.core.missing)
            X = input_matrix(X, self.network_.inputs, columns, check_unknown(self.unknown))
        return np.asarray(self.network_.scores(X), dtype=float)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "impute"  # NaN filled in fit and predict alike
        return tags

    def decision_function(self, X):
        """The network's output scores: shape (n_samples, n_classes), one column per class
        of ``classes_``; for two classes shape (n_samples,), the score of ``classes_[1]``
        minus that of ``classes_[0]`` (positive: ``classes_[1]``; 0, a tie, goes to
        ``classes_[0]`` as in ``predict``).  Scores, not probabilities."""
        s = self._scores(X)
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s

    def predict(self, X):
        """The class of ``classes_`` with the highest score for each row of ``X`` (the
        first such class on a tie, as the network's own ``predict``)."""
        s = self._scores(X)
        if s.shape[1] == 2:
            index = (s[:, 1] - s[:, 0] > 0).astype(np.intp)
        else:
            index = np.argmax(s, axis=1)
        return self.classes_[index]
