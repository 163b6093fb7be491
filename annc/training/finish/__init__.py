"""After a relaxed solve: from the relaxation's point to a network (:mod:`.exact`), adaptive
refinement of both bounds (:mod:`.refine`), and the verdict's inputs (:mod:`.relaxed`)."""
from .exact import finish
from .relaxed import conclude_relaxed

__all__ = ["conclude_relaxed", "finish"]
