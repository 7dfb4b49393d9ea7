"""The rule set on files from real repositories (provenance in tests/fixtures/real/audit/README.md):
llm.c is CUDA-heavy, micrograd is portable."""

from collections import Counter
from pathlib import Path

from audit.report import summarise
from audit.rules import load_rules
from audit.scan import scan

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "audit"
RULES = load_rules()


def test_llm_c_files_give_the_expected_findings():
    result = scan(REAL / "llm.c", RULES)
    assert result.skipped == []
    where = {(f.rule_id, f.path, f.line) for f in result.findings}
    assert ("cpp-cuda-kernel", "llmc/gelu.cuh", 13) in where
    assert ("cpp-cuda-kernel", "dev/cuda/nccl_all_reduce.cu", 48) in where
    assert ("cpp-cuda-vendor-library", "llmc/cudnn_att.cpp", 8) in where  # cudnn_frontend.h
    assert ("cpp-cuda-vendor-library", "llmc/cublas_common.h", 11) in where  # cublasLt.h
    assert ("cpp-warp-size-32", "llmc/cuda_common.h", 31) in where  # #define WARP_SIZE 32U
    assert ("py-nccl-backend", "train_gpt2.py", 591) in where
    assert ("wheel-torch-default-build", "requirements.txt", 3) in where
    counts = Counter(f.rule_id for f in result.findings)
    assert counts["container-nvidia-image"] == 5  # nvidia/cuda images in ci.yml's build jobs
    assert counts["py-torch-cuda-api"] == 5
    # ci.yml has a CPU job (python train_gpt2.py --device=cpu): a second backend exists in CI
    assert "ci-no-second-backend" not in counts
    assert len(result.findings) == 56  # the count at the pinned commit; a rule change shows here


def test_llm_c_estimate_is_above_the_baseline_for_every_backend():
    report = summarise(scan(REAL / "llm.c", RULES))
    for backend, s in report.backends.items():
        assert s.blocking_findings > 0
        assert s.weeks_low <= s.weeks_base <= s.weeks_high
        assert s.weeks_base > RULES.baseline[backend].weeks_base
    # torch.cuda and the "cuda" device work on ROCm's PyTorch, so ROCm has fewer blockers than CPU
    assert report.backends["rocm"].blocking_findings < report.backends["cpu"].blocking_findings


def test_micrograd_is_portable():
    result = scan(REAL / "micrograd", RULES)
    assert result.files_by_kind == {"notebook": 1, "python": 4}
    assert result.findings == []


def test_vllm_cuda_compat_lines_behind_use_rocm_do_not_count_against_rocm():
    result = scan(REAL / "vllm", RULES)
    warp = [f for f in result.findings if f.rule_id == "cpp-warp-size-32"]
    # WARP_SIZE 32 and the __shfl_*_sync(uint32_t(-1), ...) macros, each in an #ifndef USE_ROCM branch
    assert [f.line for f in warp] == [8, 21, 23, 31, 38]
    assert all(f.guarded == ("rocm",) for f in warp)
    rocm = summarise(result).backends["rocm"]
    assert "cpp-warp-size-32" not in {g.rule.id for g in rocm.gaps}
    assert len(rocm.guarded) == 5
