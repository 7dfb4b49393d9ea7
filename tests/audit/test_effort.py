"""The audit as the plans' migration input: the one-time cost follows the audited code."""

import json

import pytest

from audit.report import summarise, to_json
from audit.rules import load_rules
from audit.scan import scan
from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import workspace_from_dict
from tests.audit.helpers import write
from tests.factories import default_plans
from tests.workspace_data import OPTIONS, workspace

RULES = load_rules()
#: The defaults a backend the audit does not cover keeps (costmodel.market.MigrationInputs).
LOADED_USD_PER_WEEK, CERTIFY_USD = 5000.0, 2 * 2500.0


def _audit(root) -> dict:
    """What `tokendesk audit PATH --format json` prints, read back as the workspace keeps it."""
    return json.loads(json.dumps(to_json(summarise(scan(root, RULES)))))


def _shift(audit: dict | None, amd_share: float = 0.5):
    data = workspace(audit=audit) if audit is not None else workspace()
    ws = workspace_from_dict(data)
    engine = WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(ws))
    return engine.evaluate(default_plans(amd_share=amd_share))[1]


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
    costs = {}
    for name, root in (("small", small), ("heavy", heavy)):
        audit = _audit(root)
        assert audit["basis"].startswith(f"from the audit of {name} on ")
        shift = _shift(audit)
        (note,) = shift.one_time_notes
        assert note.startswith("rocm:") and audit["basis"] in note
        costs[name] = shift.one_time_usd
    assert costs["heavy"] > costs["small"]
    rocm_small = _audit(small)["backends"]["rocm"]["engineer_weeks"]["base"]
    # torch.cuda works on ROCm's PyTorch: only the ROCm baseline and the missing second-backend CI
    assert costs["small"] == pytest.approx(rocm_small * LOADED_USD_PER_WEEK + CERTIFY_USD)


def test_without_an_audit_the_default_weeks_are_named_an_estimate():
    (note,) = _shift(None).one_time_notes
    assert "12 engineer-weeks" in note and "(estimate)" in note


def test_backends_the_audit_does_not_cover_keep_their_defaults(tmp_path):
    write(tmp_path, "a.py", "x = 1")
    audit = _audit(tmp_path)
    audit["backends"] = {b: v for b, v in audit["backends"].items() if b != "rocm"}
    shift = _shift(audit)
    assert shift.one_time_usd == pytest.approx(12 * LOADED_USD_PER_WEEK + CERTIFY_USD)
    assert "(estimate)" in shift.one_time_notes[0]
