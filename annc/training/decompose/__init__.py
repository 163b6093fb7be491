"""Data beyond one MIP: one-vs-one ensembles and batch training, each sub-MIP a Dask task
(:mod:`.decomposition`).  It receives the function that trains a sub-MIP from
:func:`annc.training.dispatch.run` and never imports the trainer.
"""
