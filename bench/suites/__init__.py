"""The scripts of the suites other than real (``bench/registry.py`` names them)."""
