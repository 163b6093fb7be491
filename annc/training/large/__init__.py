"""One MIP on data of any size, and the Dask tasks that spread its heavy parts.

Above :data:`.compress.LARGE_ROWS` distinct rows a MIP is built on weighted representatives
(:mod:`.compress`) and its start pool begins with annealed sigmoids (:mod:`.anneal`);
:mod:`.largedata` chooses that path and tells the user, and runs the clustering and the annealed
seeds as tasks of :class:`.executor.Executor` (a local Dask cluster or an existing one), which
model selection, decomposition and ``annc experiment`` use for their own tasks too.
"""
