"""The application layer: a workspace and its what-ifs in, one evaluation of every plan out.

Every surface — the dashboard's pages, the command line, every brief format and futures day —
reads the :class:`planning.evaluation.Evaluation` this package builds and computes no figure of
its own. The economics live in ``costmodel`` (pure), the data in ``warehouse``; this layer joins
them: it reads the workspace, applies the what-ifs, builds the cost engine from the current
prices and results, evaluates Stay, the moves, custom mixes and the optimal fleet on one pricing
basis, and gives each plan its verdict by one rule (:mod:`planning.verdicts`).
"""
