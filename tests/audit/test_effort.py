"""The audit as the scenarios' migration input: the one-time cost follows the audited code."""

import json
from dataclasses import replace

import pytest

from audit.effort import DEFAULT_BASIS, estimates_from_json, migration_engineer_weeks
from audit.report import summarise, to_json
from audit.rules import load_rules
from audit.scan import scan
from costmodel import Demand, Engine, FleetPolicy, HourlyProfile, Segment, Slo, options_from_frame
from costmodel.scenarios import MigrationInputs, shift_to_amd
from tests.audit.helpers import write
from tests.factories import frame, sweep

RULES = load_rules()
SEC = 730 * 3600


def _estimates(root):
    return estimates_from_json(json.loads(json.dumps(to_json(summarise(scan(root, RULES))))))


def _one_time(migration: MigrationInputs):
    options = options_from_frame(
        frame(
            sweep(),
            sweep(
                backend="rocm",
                provider="azure",
                instance_type="ND96isr_MI300X_v5",
                usd_per_hour=48.0,
                accelerators_per_replica=1,
                points=((1, 400, 200), (16, 2500, 600), (64, 6000, 1500)),
            ),
        )
    )
    segment = Segment(
        "chat",
        ("Llama-3.1-70B",),
        monthly_input_tokens=0,
        monthly_output_tokens=16000 * SEC,
        profile=HourlyProfile(curve=(1.0,) * 24),
        slo=Slo(ftl_ms=1000),
    )
    scenario = replace(shift_to_amd(0.25), migration=migration)
    (result,) = Engine(options).evaluate(
        [scenario], Demand((segment,)), FleetPolicy(utilisation_cap=1.0, availability=1.0)
    )
    return result.migration


def test_one_time_cost_changes_with_the_audited_code(tmp_path):
    small = tmp_path / "small"
    write(small, "app.py", "torch.cuda.synchronize()")
    heavy = tmp_path / "heavy"
    for i in range(6):
        write(
            heavy,
            f"csrc/k{i}.cu",
            "#include <cublasLt.h>\n__global__ void k(float* x) { x[0] = 1; }",
        )
    write(heavy, "csrc/gemm.cu", '#include "cutlass/gemm/device/gemm.h"')
    defaults = MigrationInputs().engineer_weeks
    costs = {}
    for name, root in (("small", small), ("heavy", heavy)):
        weeks, basis = migration_engineer_weeks(_estimates(root), defaults)
        assert basis.startswith(f"from the audit of {name} on ")
        migration = _one_time(MigrationInputs(engineer_weeks=weeks, engineer_weeks_basis=basis))
        assert migration.new_backends == ("rocm",)
        assert basis in migration.sentence
        costs[name] = migration.one_time_usd
    assert costs["heavy"] > costs["small"]
    rocm_small = dict(migration_engineer_weeks(_estimates(small), defaults)[0])["rocm"]
    # torch.cuda works on ROCm's PyTorch: only the ROCm baseline and the missing second-backend CI
    assert costs["small"] == pytest.approx(rocm_small * 5000 + 2 * 2500)


def test_without_an_audit_the_defaults_stay_labelled_default():
    defaults = MigrationInputs().engineer_weeks
    assert migration_engineer_weeks({}, defaults) == (defaults, DEFAULT_BASIS)
    assert "engineer-weeks (default)" in _one_time(MigrationInputs()).sentence


def test_backends_the_audit_does_not_cover_keep_their_defaults(tmp_path):
    write(tmp_path, "a.py", "x = 1")
    weeks, _ = migration_engineer_weeks(_estimates(tmp_path), MigrationInputs().engineer_weeks)
    assert dict(weeks)["qaic"] == 20.0 and dict(weeks)["cuda"] == 2.0
    assert dict(weeks)["rocm"] == RULES.baseline["rocm"].weeks_base


def test_malformed_audit_json_is_a_clear_error():
    with pytest.raises(ValueError, match="not an audit result"):
        estimates_from_json({"backends": {}})
    with pytest.raises(ValueError, match="low <= base <= high"):
        estimates_from_json(
            {
                "basis": "from the audit of x on 2026-12-01",
                "backends": {
                    "rocm": {
                        "engineer_weeks": {"low": 5, "base": 1, "high": 9},
                        "confidence": "low",
                        "blocking_findings": 1,
                    }
                },
            }
        )
