"""Layer 6, the ways in: the command line, the Python API and the estimator.

:mod:`.cli` (with :mod:`.cli_commands`, :mod:`.cli_train` and the progress display
:mod:`.progress`), :mod:`.api` (``annc.compile``, ``annc.train``, ``annc.export_onnx``),
:mod:`.estimator` (``annc.MIPNetClassifier``) and the paper's experiments
(:mod:`.experiment`).  They use everything; nothing uses them.
"""
