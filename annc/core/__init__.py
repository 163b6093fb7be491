"""Layer 0, the core: the vocabulary every other layer speaks.

The MIP itself (:mod:`.model`, :mod:`.builder`, :mod:`.names`, :mod:`.feasibility`), the
network the user gets (:mod:`.network`, :mod:`.ensemble`, :mod:`.scaling`, :mod:`.inputs`),
the fact tables that lower layers read by name (:mod:`.activations`, :mod:`.losses`,
:mod:`.penalties`, :mod:`.limits`), and the errors and the no-op logger (:mod:`.errors`,
:mod:`.log`).  Nothing here knows a spec, a file or a solver.
"""
