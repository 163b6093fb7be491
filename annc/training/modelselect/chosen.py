"""What a strategy of model selection chose, as the final training reads it: :class:`Chosen`.

Both results, :class:`~annc.training.modelselect.cvresults.CVSelection` (k-fold cross-validation)
and :class:`~annc.training.modelselect.selection.Selection` (held-out candidates), are one type to
:func:`annc.training.trainer.fit`: the spec to train on all rows, its label, the network it starts
from (or keeps, with the reason), and the record that goes into the weights' ``meta["selection"]``.
"""
from __future__ import annotations

__all__ = ["Chosen"]


class Chosen:
    """The interface of a selection's result (module docstring); the defaults are a held-out
    selection's: no start network, nothing kept."""

    start_network: tuple | None = None  # the chosen setting's network on all rows, on raw inputs (a start)
    budget: int | None = None  # the final training's weight budget (max_weights), if the strategy set one

    @property
    def label(self) -> str:
        raise NotImplementedError

    @property
    def keeps(self) -> bool:
        """Whether the final training keeps :attr:`start_network` as it is (the MIP bounds it)."""
        return False

    @property
    def kept_reason(self) -> str | None:
        """Why the final training keeps the start network (for the verdict), or None."""
        return None

    def to_dict(self) -> dict:
        raise NotImplementedError

    def cv_results(self) -> dict | None:
        """scikit-learn's ``cv_results_`` of the settings scored, or None where the strategy keeps no
        such table (a held-out selection)."""
        return None

    def best_params(self) -> dict | None:
        """The chosen setting's ``params`` row of :meth:`cv_results`, with the final training's weight
        budget as ``max_weights`` where there is one; None without a table."""
        table = self.cv_results()
        if table is None:
            return None
        params = dict(table["params"][self.chosen])
        if self.budget is not None:
            params["max_weights"] = self.budget
        return params

    def table_lines(self) -> list[str]:
        raise NotImplementedError
