"""Layer 4, training: the searches and runs built on the pipeline.

Five modules stay at the top: one training problem (:mod:`.trainer`), the request every entry
point builds (:mod:`.request`), the one dispatcher of full, greedy, select, ovo and batches
(:mod:`.dispatch`), what a run returns (:mod:`.results`) and the run context every step draws
from (:mod:`.context`).  The rest is grouped by what it does:

* :mod:`.warmstart`: the networks a MIP starts from (SGD, the start pool) and the default eps;
* :mod:`.search`: improving an incumbent (the MIP start's local search, the exact
  neighbourhood search);
* :mod:`.bounds`: valid lower bounds, and the proof before the full MIP;
* :mod:`.finish`: after a relaxed solve (the exact finish, refinement), and dead weights dropped;
* :mod:`.mip`: the MIPs of a run (``annc compile`` composed, the chain of MIPs, the stall rule's
  size, the files they leave);
* :mod:`.large`: one MIP on data of any size (weighted representatives, annealed sigmoids) and
  the Dask executor;
* :mod:`.modelselect`: model selection (k-fold cross-validation, ``--select``, the splits);
* :mod:`.decompose`: data beyond one MIP (one-vs-one ensembles, batch training).

The modules of earlier releases (``annc.training.cvselect``, ``annc.training.pool``, ...) still
import, with a DeprecationWarning naming the new path (``annc._MOVED_DEEP``).
"""
