"""While a command-line writer holds the warehouse, the dashboard says so in plain words
instead of showing Streamlit's redacted error."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

from streamlit.testing.v1 import AppTest

from tokendesk.paths import REPO_ROOT

HOLD = textwrap.dedent(
    """
    import sys, time
    import duckdb
    con = duckdb.connect(sys.argv[1])  # a writer, as `tokendesk db ingest` is
    print("holding", flush=True)
    time.sleep(120)
    """
)


def test_pages_show_a_plain_notice_while_another_process_writes(fixture_db, tmp_path, monkeypatch):
    path = tmp_path / "busy.duckdb"
    shutil.copy(fixture_db, path)
    monkeypatch.setenv("TOKENDESK_DB", str(path))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        at = AppTest.from_file(
            str(REPO_ROOT / "app" / "streamlit_app.py"), default_timeout=60
        ).run()
        assert not at.exception
        notices = [info.value for info in at.info]
        assert any("being written by another tokendesk process" in n for n in notices), notices
        assert not at.error
    finally:
        holder.kill()
        holder.wait(timeout=30)
