"""Model selection: choosing what a spec leaves open (the l0 weight, the widths, eps) by how the
networks it gives do on rows the MIP never saw.

k-fold cross-validation, the default on real data (:mod:`.cvselect`: the plan, the folds and the
final training), with the cheap search on one fold (:mod:`.cvpath`), the scores and the rule
(:mod:`.cvresults`) and a setting's network on all the rows (:mod:`.cvrows`); ``--select`` on a
held-out split (:mod:`.selection`) over its grid of candidate specs (:mod:`.select_grid`); and the
stratified splits both use (:mod:`.splits`, also batch training's held-out rows).  Like
:mod:`annc.training.decompose`, it receives the function that trains a candidate from
:func:`annc.training.dispatch.run` and never imports the trainer.
"""
