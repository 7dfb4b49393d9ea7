"""The day a peak ÷ mean describes: a sinusoid up to 2 (as before), a single narrower peak above,
so a workspace may state any peak ÷ mean from 1 to 20 and the sizing sees exactly that peak."""

import numpy as np
import pytest

from costmodel import domain
from costmodel.demand import HourlyProfile
from costmodel.workspace_model import WorkspaceError, workspace_from_dict
from tests.workspace_data import EXAMPLE


@pytest.mark.parametrize("peak", [1.0, 1.5, 2.0, 2.5, 3.0, 6.0, 12.0, 20.0])
def test_the_day_peaks_at_the_stated_factor_with_mean_one_and_no_negative_hour(peak):
    day = HourlyProfile(peak_factor=peak, peak_hour=14).normalised()
    assert day.max() == pytest.approx(peak, rel=1e-9)
    assert day.mean() == pytest.approx(1.0, rel=1e-12)
    assert day.min() >= 0
    assert peak == 1.0 or int(np.argmax(day)) == 14  # a flat day has no peak hour


def test_up_to_two_the_day_is_the_sinusoid_it_always_was():
    day = HourlyProfile(peak_factor=1.8, peak_hour=14).normalised()
    hours = np.arange(24)
    assert day == pytest.approx(1 + 0.8 * np.cos(2 * np.pi * (hours - 14) / 24))


def test_a_workspace_takes_a_peak_above_two_and_names_one_above_the_limit():
    import yaml

    body = yaml.safe_load(EXAMPLE.read_text())
    body["demand"][0]["peak_to_mean"] = 3.5
    assert workspace_from_dict(body).demand[0].peak_to_mean == 3.5
    body["demand"][0]["peak_to_mean"] = domain.PEAK_TO_MEAN.high + 1
    with pytest.raises(WorkspaceError, match=r"between 1 and 20 \(the busiest hour"):
        workspace_from_dict(body)
