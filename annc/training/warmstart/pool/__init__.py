"""The start pool: candidate networks (SGD, annealed sigmoids, sparse linear separators), each
repaired into the model's box and off the eps gap and lifted to a MIP point
(:mod:`.candidates`; the steps are :mod:`.seeding`, :mod:`.linear`, :mod:`.repair`, :mod:`.point`)."""
from .candidates import Candidate, network_start, start_pool
from .point import complete, feasible, hidden_network
from .seeding import output_layer, pruned, sgd_start

__all__ = ["Candidate", "complete", "feasible", "hidden_network", "network_start", "output_layer", "pruned",
           "sgd_start", "start_pool"]
