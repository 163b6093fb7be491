"""After a relaxed solve: from the relaxation's point to a network (:mod:`.exact`), adaptive
refinement of both bounds (:mod:`.refine`), and the verdict's inputs (:mod:`.relaxed`); after any
search or solve, the weights no output reads dropped (:mod:`.deadweights`)."""
from .exact import finish
from .relaxed import RelaxedSolve, conclude_relaxed

__all__ = ["RelaxedSolve", "conclude_relaxed", "finish"]
