"""Layer 1, input and output: what the user writes and what annc reads and writes.

The spec language (:mod:`.spec`), the training data (:mod:`.data`, :mod:`.datasets`) and
the two together (:mod:`.problem`, :mod:`.magnitudes`, :mod:`.recipe`); the output folder
(:mod:`.outputs`), the model writers (:mod:`.writers`), the solution readers
(:mod:`.solutions`) and the variable map (:mod:`.varmap`).  The writers and the readers
import only the core (and the writers the output folder): a writer sees a ``Model``, a
reader sees text.
"""
