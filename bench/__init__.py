"""annc's benchmark suite (not part of the installed package).

``bench/run.py`` runs a suite by name (``bench/registry.py``) into ``bench/results/``
(``bench/results.py``) and writes docs/benchmarks.md and the README's tables from those results
(``bench/render.py``; the real suite's tables ``bench/real/render.py``).  The real-data harness is
``bench/real/``; the other suites' scripts are in ``bench/suites/``.
"""
