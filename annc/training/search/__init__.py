"""Improving an incumbent network: the MIP start (:mod:`.start`: the pool's best, then
fix-and-optimise, :mod:`.local`), the exact neighbourhood search (:mod:`.lns` over the
registry of :mod:`.neighbourhoods`), and the record the verdict reports (:mod:`.incumbent`)."""
from .incumbent import SearchRecord, search_incumbent
from .local import drop_weights, fix_layers, improve
from .neighbourhoods import NEIGHBOURHOODS, Certificate, Neighbourhood, register
from .incumbent import budgeted_start
from .start import mip_start, start_search

__all__ = ["NEIGHBOURHOODS", "Certificate", "Neighbourhood", "SearchRecord", "budgeted_start", "drop_weights",
           "fix_layers", "improve", "mip_start", "register", "search_incumbent", "start_search"]
