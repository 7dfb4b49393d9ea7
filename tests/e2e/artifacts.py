"""Where the browser tests leave their screenshots (kept by CI as artifacts)."""

from pathlib import Path

from tokendesk.paths import REPO_ROOT

ARTIFACTS = REPO_ROOT / "test-artifacts"


def screenshot(page, name: str) -> Path:
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
