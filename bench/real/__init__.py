"""The real-data suite: data sets, annc recipes, baselines, the harness, its summary and its tables
on the benchmark pages."""
