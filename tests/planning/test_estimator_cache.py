"""The estimator's leave-one-out is kept per results snapshot: written once, read back equal."""

from __future__ import annotations

import numpy as np

from costmodel.perf_calibration import METRICS, LeaveOneOut
from planning.estimates import loo_cache_path, read_loo, write_loo


def test_a_kept_leave_one_out_reads_back_equal(tmp_path):
    loo = LeaveOneOut(
        {m: np.array([1.5, np.nan, 3.0]) for m in METRICS},
        {m: np.array([0, -1, 2]) for m in METRICS},
        {"a|x": np.array([False, True, True]), "b|y": np.array([True, False, False])},
    )
    path = tmp_path / "loo.npz"
    assert read_loo(path) is None
    write_loo(path, loo)
    back = read_loo(path)
    assert back is not None
    for m in METRICS:
        np.testing.assert_array_equal(back.predicted[m], loo.predicted[m])
        np.testing.assert_array_equal(back.level[m], loo.level[m])
    assert set(back.fitted_on) == set(loo.fitted_on)
    np.testing.assert_array_equal(back.fitted_on["a|x"], loo.fitted_on["a|x"])


def test_other_results_are_kept_apart():
    one = [{"result_id": "r1", "output_tok_s_per_accelerator": 100.0}]
    other = [{"result_id": "r1", "output_tok_s_per_accelerator": 101.0}]
    assert loo_cache_path(one) != loo_cache_path(other)
    assert loo_cache_path(one) == loo_cache_path([dict(one[0])])
