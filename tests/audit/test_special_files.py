"""The audit reads a tree someone else wrote: a pipe or device in it is skipped by its type
(a read would block or never end), and names and lines reach its Markdown without escape
sequences or bidi overrides."""

from __future__ import annotations

import os
import signal

from audit.gap_list import markdown
from audit.report import summarise
from audit.scan import scan


def test_the_audit_skips_a_pipe_and_cleans_names_in_its_markdown(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    os.mkfifo(repo / "blocking.py")  # a read would wait forever
    (repo / "model.py").write_text("import torch\nx = torch.cuda.is_available()\n")
    (repo / "evil\x1b[31m\u202e.py").write_text("y = torch.cuda.current_device()\n")

    def _hung(signum, frame):
        raise AssertionError("the scan blocked on the pipe")

    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(30)  # a scan that reads the pipe would wait forever
    try:
        result = scan(repo)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert any(s.path == "blocking.py" and "not a regular file" in s.reason for s in result.skipped)
    text = markdown(summarise(result)).decode()
    assert "\x1b" not in text and "\u202e" not in text
