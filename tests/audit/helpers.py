"""Build small repositories on disk for the audit tests."""

from __future__ import annotations

import json
from pathlib import Path

#: A file name per kind the rule table knows, so a rule's example can be placed where it applies.
FILE_FOR_KIND = {
    "python": "src/mod_{n}.py",
    "notebook": "notebooks/nb_{n}.ipynb",
    "dockerfile": "docker/{n}/Dockerfile",
    "requirements": "reqs/{n}/requirements.txt",
    "ci": ".github/workflows/ci_{n}.yml",
    "cpp": "csrc/k_{n}.cu",
    "build": "build/{n}/CMakeLists.txt",
}


def notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {},
                    "source": c.splitlines(keepends=True),
                    "outputs": [],
                }
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notebook(text) if rel.endswith(".ipynb") else text + "\n", encoding="utf-8")
    return path


CLEAN_REPO = {
    "app/serve.py": (
        "import torch\n"
        "# torch.cuda.synchronize() is not needed here\n"
        "def load(path, device):\n"
        '    """Move the model to the configured device (never "cuda" by hand)."""\n'
        "    model = torch.load(path)\n"
        "    return model.to(device)\n"
    ),
    "notebooks/explore.ipynb": "import numpy as np\nx = np.arange(4)\n",
    "requirements.txt": "numpy==2.0.0\npandas==2.2.2  # pinned\ntransformers==4.44.0",
    "Dockerfile": "FROM python:3.11-slim\nRUN pip install -r requirements.txt",
    ".github/workflows/test.yml": (
        "name: test\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
        "    steps:\n      - run: pytest -q"
    ),
    "native/gelu.cpp": (
        "// A CPU kernel; the CUDA one (__global__ void gelu_kernel) was removed.\n"
        "/* cudaMalloc is not used */\n"
        "#include <cmath>\n"
        "void gelu(float* out, const float* in, int n) {\n"
        "  for (int i = 0; i < n; ++i) out[i] = 0.5f * in[i] * (1.0f + std::tanh(in[i]));\n"
        "}\n"
    ),
    "native/CMakeLists.txt": "project(gelu CXX)\nadd_library(gelu gelu.cpp)",
}


def clean_repo(root: Path) -> Path:
    for rel, text in CLEAN_REPO.items():
        write(root, rel, text)
    return root
