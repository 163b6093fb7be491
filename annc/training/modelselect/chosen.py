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

    def table_lines(self) -> list[str]:
        raise NotImplementedError
