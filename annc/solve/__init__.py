"""Layer 3, the pipeline: compile, solve, decode, verify.

:mod:`.compiler` turns a concrete spec and its data into the MIP and its files;
:mod:`.solvers` hands a model to a solver and returns its point (the drivers never import
the compiler, the decoder or the verifier); :mod:`.decode` turns a point back into the
exported network; :mod:`.verify` checks that network by annc's own forward pass against
every row; :mod:`.verdict` says what the run proved about it.
"""
