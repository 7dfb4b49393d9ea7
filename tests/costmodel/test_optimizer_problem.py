"""The optimizer's problem records and the dominance rule that drops candidates before solving
(``costmodel.optimizer_problem``); that pruning never changes the optimum is checked against the
solver in ``test_optimizer.py``."""

from __future__ import annotations

from costmodel.optimizer_problem import HELD, HOURLY, Candidate, prune


def test_whole_units_of_a_cheaper_option_replace_a_dearer_one_but_never_a_larger_one_under_n_plus_one():
    def od(name, cap, rate):
        return Candidate("a", HOURLY, "new", "p", "r", name, "on_demand", "cuda", cap, rate)

    big, half, other = od("big", 1000.0, 10.0), od("half", 500.0, 4.0), od("other", 600.0, 7.0)
    held = Candidate("a", HELD, "new", "p", "r", "held", "reserved_1y", "cuda", 500.0, 4.0 * 730)
    # Two halves (8.0) replace big (10.0); other needs two halves too (8.0 > 7.0) and stays; an
    # on-demand unit at the same monthly price replaces the held one.
    assert prune((big, half, other, held)) == (half, other)
    # With N+1 a larger unit would raise the headroom: big (larger) never replaces half.
    assert prune((od("big", 1000.0, 3.0), half), n_plus_one=True) == (od("big", 1000.0, 3.0), half)
    assert prune((od("big", 1000.0, 3.0), half)) == (od("big", 1000.0, 3.0),)
