"""Layer 4, training: the searches and runs built on the pipeline.

One training problem (:mod:`.trainer`), its MIP starts and exact neighbourhood search
(:mod:`.starts`), its lower bounds (:mod:`.bounds`), SGD (:mod:`.sgd`) and the solve chain
(:mod:`.chain`, :mod:`.relaxed`); the request every entry point builds (:mod:`.request`)
and the one dispatcher of full, greedy, select, ovo and batches (:mod:`.dispatch`), with
selection (:mod:`.selection`, :mod:`.select_grid`, :mod:`.splits`), decomposition
(:mod:`.decomposition`) and the parallel executor (:mod:`.executor`); and the files a run
writes (:mod:`.results`, :mod:`.runfiles`).
"""
