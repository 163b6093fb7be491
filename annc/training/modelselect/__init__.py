"""Model selection: choosing what a spec leaves open (the l0 weight, the widths, eps) by how the
networks it gives do on rows the MIP never saw.

The strategies (:mod:`.strategy`: off, auto, cross-validation, a held-out grid) each return one
result type (:mod:`.chosen`) that the final training reads; every number of the plan and the rule
is a field of the policy (:mod:`.policy`).  k-fold cross-validation, the default on real data
(:mod:`.cvselect`: the plan and the final choice), runs its folds (:mod:`.cvfolds`) by the cheap
search on one fold (:mod:`.cvpath`) over the settings of :mod:`.settings`, with the classic models
of :mod:`.kept`, the scores and the rule (:mod:`.cvresults`) and a setting's network on all the rows
(:mod:`.cvrows`); ``--select`` on a held-out split (:mod:`.selection`) over its grid of candidate
specs (:mod:`.select_grid`); and the stratified splits both use (:mod:`.splits`, also batch
training's held-out rows).  Like :mod:`annc.training.decompose`, it receives the function that
trains a candidate from :func:`annc.training.dispatch.run` and never imports the trainer.
"""
