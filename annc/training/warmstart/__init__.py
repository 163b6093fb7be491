"""The networks a MIP starts from, found before any MIP is solved.

Gradient training (:mod:`.sgd`: the paper's SGD baselines and the pool's SGD seeds), the start
pool (:mod:`.pool`: candidate networks repaired into the model's box and lifted to MIP points),
and the default recipe's eps (:mod:`.margin`), chosen by a short SGD run and the pool's repair.
The annealed sigmoids the pool also seeds from are the large-data path's
(:mod:`annc.training.large.anneal`).
"""
