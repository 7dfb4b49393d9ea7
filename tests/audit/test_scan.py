"""The scanner on hand-built repositories: every rule's own examples are found where they apply,
a clean repository gives no finding, and the audit never runs, imports or leaves its root."""

import os
import sys

import pytest

from audit import scan as scan_module
from audit.gap_list import markdown
from audit.report import summarise
from audit.rules import load_rules
from audit.scan import AuditPathError, classify, scan
from tests.audit.helpers import FILE_FOR_KIND, clean_repo, write

RULES = load_rules()


def test_every_rule_example_is_found_in_every_kind_it_applies_to(tmp_path):
    expected = set()
    n = 0
    for rule in RULES.rules:
        if rule.absent:
            continue
        for line in rule.examples:
            for kind in rule.kinds:
                n += 1
                rel = FILE_FOR_KIND[kind].format(n=n)
                write(tmp_path, rel, line)
                expected.add((rule.id, rel))
    found = {(f.rule_id, f.path) for f in scan(tmp_path, RULES).findings}
    missing = expected - found
    assert not missing, f"false negatives: {sorted(missing)}"


def test_clean_repository_has_no_finding(tmp_path):
    result = scan(clean_repo(tmp_path), RULES)
    assert result.findings == []
    assert result.files_by_kind == {
        "build": 1,
        "ci": 1,
        "cpp": 1,
        "dockerfile": 1,
        "notebook": 1,
        "python": 1,
        "requirements": 1,
    }
    report = summarise(result)
    for s in report.backends.values():  # only the baseline remains
        assert s.blocking_findings == 0
        assert s.weeks_base == RULES.baseline[s.backend].weeks_base


def test_clean_lines_of_each_rule_give_no_finding_of_that_rule(tmp_path):
    n = 0
    placed = {}
    for rule in RULES.rules:
        if rule.absent:
            continue
        for line in rule.clean:
            for kind in rule.kinds:
                n += 1
                rel = FILE_FOR_KIND[kind].format(n=n)
                write(tmp_path, rel, line)
                placed[rel] = rule.id
    hits = [
        (f.rule_id, f.path)
        for f in scan(tmp_path, RULES).findings
        if placed.get(f.path) == f.rule_id
    ]
    assert hits == []


def test_commented_out_cuda_is_not_a_finding(tmp_path):
    write(tmp_path, "a.py", "x = 1  # torch.cuda.synchronize()\n# model.cuda()")
    write(
        tmp_path,
        "k.cu",
        "// __global__ void k() {}\n/* #include <cuda_runtime.h>\n cudaMalloc(&p, 4); */",
    )
    write(tmp_path, "requirements.txt", "# flash-attn==2.5.8\nnumpy")
    assert scan(tmp_path, RULES).findings == []


def test_notebook_findings_name_cell_and_line(tmp_path):
    write(tmp_path, "nb.ipynb", "import torch\nx = torch.zeros(2).cuda()")
    findings = scan(tmp_path, RULES).findings
    (finding,) = [f for f in findings if f.rule_id != "ci-no-second-backend"]
    assert (finding.rule_id, finding.cell, finding.line) == ("py-cuda-device-string", 1, 2)


def test_missing_second_backend_in_ci_is_a_finding_only_for_cuda_tied_code(tmp_path):
    write(tmp_path, "k.cu", "__global__ void k(float* x) { x[0] = 1; }")
    write(tmp_path, ".github/workflows/gpu.yml", "jobs:\n  gpu:\n    runs-on: [self-hosted, gpu]")
    ids = {f.rule_id for f in scan(tmp_path, RULES).findings}
    assert "ci-no-second-backend" in ids
    write(
        tmp_path,
        ".github/workflows/cpu.yml",
        "jobs:\n  cpu:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test DEVICE=cpu",
    )
    assert "ci-no-second-backend" not in {f.rule_id for f in scan(tmp_path, RULES).findings}


def test_no_ci_at_all_is_reported_for_the_repository(tmp_path):
    write(tmp_path, "k.cu", "__global__ void k(float* x) { x[0] = 1; }")
    (absent,) = [f for f in scan(tmp_path, RULES).findings if f.rule_id == "ci-no-second-backend"]
    assert absent.path == "(repository)" and absent.text == "no CI configuration found"


def test_scanned_code_is_never_run_or_imported(tmp_path):
    sentinel = tmp_path.parent / f"{tmp_path.name}-ran"
    payload = f"open({str(sentinel)!r}, 'w').write('ran')\nimport torch\ntorch.cuda.synchronize()"
    write(tmp_path, "evil_module_for_audit.py", payload)
    write(tmp_path, "setup.py", payload)
    write(tmp_path, "nb.ipynb", payload)
    result = scan(tmp_path, RULES)
    assert not sentinel.exists()
    assert "evil_module_for_audit" not in sys.modules
    assert {f.path for f in result.findings if f.line} == {
        "evil_module_for_audit.py",
        "setup.py",
        "nb.ipynb",
    }


def test_binary_and_huge_files_are_skipped_with_a_note(tmp_path, monkeypatch):
    (tmp_path / "blob.py").write_bytes(b"torch.cuda.synchronize()\x00\x01\x02")
    write(tmp_path, "big.py", "torch.cuda.synchronize()\n" + "x = 1\n" * 200)
    monkeypatch.setattr(scan_module, "MAX_FILE_BYTES", 1000)
    result = scan(tmp_path, RULES)
    assert result.findings == []
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons["blob.py"] == "skipped: binary file"
    assert "over the" in reasons["big.py"]
    report = summarise(result)
    assert report.backends["rocm"].confidence_reasons[-1].startswith("2 file(s) could not be read")
    assert "Skipped or refused" in markdown(report).decode()


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_links_outside_the_root_are_refused(tmp_path):
    outside = tmp_path / "outside"
    write(outside, "secret.cu", "__global__ void k() {}")
    root = tmp_path / "repo"
    write(root, "ok.py", "x = 1")
    (root / "linked.cu").symlink_to(outside / "secret.cu")
    (root / "vendor").symlink_to(outside, target_is_directory=True)
    result = scan(root, RULES)
    assert result.findings == []
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons["linked.cu"].startswith("refused")
    assert reasons["vendor/"].startswith("refused")


def test_a_missing_path_or_a_file_is_a_clear_error(tmp_path):
    with pytest.raises(AuditPathError, match="no such folder"):
        scan(tmp_path / "nope", RULES)
    write(tmp_path, "a.py", "x = 1")
    with pytest.raises(AuditPathError, match="not a folder"):
        scan(tmp_path / "a.py", RULES)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("Dockerfile.rocm", "dockerfile"),
        ("requirements/cuda.txt", "requirements"),
        (".github/workflows/ci.yaml", "ci"),
        ("csrc/attn.cuh", "cpp"),
        ("CMakeLists.txt", "build"),
        ("docs/index.md", None),
        ("data/weights.bin", None),
    ],
)
def test_classify(path, kind):
    from pathlib import PurePosixPath

    assert classify(PurePosixPath(path)) == kind


def test_cuda_only_preprocessor_branches():
    from audit.scan import cuda_only_lines

    lines = [
        "#ifdef USE_ROCM",  # 1
        "  hip_path();",  # 2
        "#else",  # 3
        "  cuda_path();",  # 4  not compiled for ROCm
        "#endif",  # 5
        "#if !defined(__HIP_PLATFORM_AMD__)",  # 6
        "#if __CUDA_ARCH__ >= 800",  # 7
        "  sm80_path();",  # 8  not compiled for ROCm (outer branch)
        "#endif",  # 9
        "#endif",  # 10
        "#if defined(USE_ROCM) && FOO",  # 11 compound: neutral
        "  either();",  # 12
        "#endif",  # 13
        "shared();",  # 14
    ]
    assert cuda_only_lines(lines, RULES.rocm_guard_macros) == {4, 8}


def test_a_folder_that_cannot_be_listed_is_noted(tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_walk = os.walk

    def walk(top, **kwargs):
        kwargs["onerror"](PermissionError(13, "Permission denied", str(locked)))
        yield from real_walk(top, **kwargs)

    monkeypatch.setattr(scan_module.os, "walk", walk)
    result = scan(tmp_path, RULES)
    assert [(s.path, s.reason) for s in result.skipped] == [
        ("locked/", "skipped: cannot list the folder (Permission denied)")
    ]
