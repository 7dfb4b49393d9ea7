"""The estimates on the pages: the Benchmarks page's predicted-against-measured chart and its
sentence, and the Workspace page's measured and estimated model choices."""

from __future__ import annotations

import pytest

from app import charts
from app.models import estimate_pages as estimates
from costmodel.workspace_model import workspace_from_dict, workspace_to_dict
from tests.workspace_data import workspace


def case(measured: float, predicted: float, vendor: str = "NVIDIA") -> dict:
    return {
        "model": "llama-2-70b",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "vendor": vendor,
        "regime": "server",
        "measured": measured,
        "predicted": predicted,
        "low": predicted * 0.8,
        "high": predicted * 1.25,
        "evidence": "same part, same model family",
    }


REPORT = {
    "metrics": {
        estimates.THROUGHPUT: {
            "overall": {"cases": 3, "median_abs_pct_error": 0.1234, "interval_coverage": 0.6667},
            "targets": {
                "median_abs_pct_error_at_most": 0.15,
                "error_met": True,
                "coverage_between": [0.7, 0.9],
            },
            "cases": [case(100, 110), case(2000, 1500, "AMD"), case(0, 5)],
        },
        "ttft_ms_p99": {
            "overall": {"cases": 2, "median_abs_pct_error": 0.296, "interval_coverage": 0.8},
            "targets": {
                "median_abs_pct_error_at_most": 0.25,
                "error_met": False,
                "coverage_between": [0.7, 0.9],
            },
            "cases": [case(400, 300), case(900, 500)],
            "naive_reference": {
                "rule": "the median of the others",
                "cases": 2,
                "median_abs_pct_error": 0.4175,
                "model_median_abs_pct_error": 0.306,
            },
        },
        "tpot_ms_p50": {
            "overall": {"cases": 1, "median_abs_pct_error": 0.1, "interval_coverage": 1.0},
            "targets": {
                "median_abs_pct_error_at_most": None,
                "error_met": None,
                "coverage_between": [0.7, 0.9],
            },
            "cases": [case(40, 44)],
        },
    }
}


def test_the_chart_plots_each_held_out_case_with_its_interval_on_log_axes():
    points = estimates.validation_points(REPORT)
    assert len(points) == 2  # a measured 0 cannot sit on a log axis
    fig = charts.predicted_vs_measured(points, "output tok/s")
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    vendors = [t for t in fig.data if t.mode == "markers"]
    assert {t.name for t in vendors} == {"AMD", "NVIDIA"}
    amd = next(t for t in vendors if t.name == "AMD")
    assert list(amd.error_y.array) == pytest.approx([1500 * 0.25])
    assert list(amd.error_y.arrayminus) == pytest.approx([1500 * 0.2])
    line = next(t for t in fig.data if t.mode == "lines")
    assert list(line.x) == list(line.y)  # y = x


def test_the_sentence_gives_the_median_error_and_the_coverage_with_their_targets():
    text = estimates.validation_sentence(REPORT)
    assert "median 12.3%" in text and "3 held-out results" in text
    assert "holds 67%" in text and "target 70%–90%" in text and "target ≤ 15%, met" in text
    assert "No held-out result" in estimates.validation_sentence({"metrics": {}})
    # Each figure the tab offers reads its own cases and says when its target is missed, or
    # that it has none.
    assert "target ≤ 25%, missed" in estimates.validation_sentence(REPORT, "ttft_ms_p99")
    assert len(estimates.validation_points(REPORT, "ttft_ms_p99")) == 2
    assert "(no target)" in estimates.validation_sentence(REPORT, "tpot_ms_p50")


def test_the_sentence_sets_the_naive_reference_beside_the_model_where_the_report_has_one():
    text = estimates.validation_sentence(REPORT, "ttft_ms_p99")
    assert "(the median of the others) is off by a median 41.8% on 2 of these" in text
    assert "the model, by 30.6% on the same" in text
    assert "For scale" not in estimates.validation_sentence(REPORT)


def test_model_choices_name_measured_models_first_and_estimated_ones_apart():
    choices = estimates.model_choices(
        ["llama-3.1-70b-instruct", "llama-3.1-8b-instruct"],
        ["llama-3.1-70b", "llama-3.3-70b", "llama-3.1-8b"],
        ["llama-3.1-70b", "llama-3.1-8b"],
    )
    assert choices == [
        ("llama-3.1-70b-instruct", "measured"),
        ("llama-3.1-8b-instruct", "measured"),
        ("llama-3.3-70b", "estimated"),
    ]
    text = estimates.choices_text(choices)
    assert "Measured (results exist): llama-3.1-70b-instruct, llama-3.1-8b-instruct." in text
    assert text.endswith("plan): llama-3.3-70b.")


def test_the_estimates_setting_is_on_by_default_and_round_trips():
    data = workspace()
    assert workspace_from_dict(data).constraints.allow_estimates
    data["constraints"]["allow_estimates"] = False
    ws = workspace_from_dict(data)
    assert not ws.constraints.allow_estimates
    assert workspace_from_dict(workspace_to_dict(ws)) == ws
    data["constraints"]["allow_estimates"] = "yes"
    with pytest.raises(ValueError, match=r"constraints\.allow_estimates"):
        workspace_from_dict(data)
