"""annc: compile the training of a small dense neural network into a mixed-integer program."""
__version__ = "0.1.0"
