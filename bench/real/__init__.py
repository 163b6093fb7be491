"""The real-data suite: data sets, annc recipes, baselines, the harness and its summary."""
