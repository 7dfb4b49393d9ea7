"""A workspace file or upload read within limits, before anything parses it whole.

Every way a workspace enters (``workspace import``, ``scenarios``/``optimize``/``commit`` with
``--workspace``, the Workspace page's upload) reads it here: a regular file (a directory, device
or pipe is refused by its type, before a byte is read), at most ``MAX_WORKSPACE_BYTES``, UTF-8,
YAML within the alias, depth and size limits, and then the workspace validator. A refusal is a
:class:`~briefs.workspace_plans.WorkspaceFileError` naming the file and, where there is one, the
field — one short sentence, never the document echoed back.
"""

from __future__ import annotations

from pathlib import Path

from briefs import workspace_plans as wp
from costmodel.workspace import Workspace, WorkspaceError, workspace_from_dict
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_text, read_yaml_text
from tokendesk.textsafety import clean_text

#: Largest workspace file: the bundled example is 3 KiB and a 500-line fleet about 100 KiB.
MAX_WORKSPACE_BYTES = 512 * 1024
LIMITS = YamlLimits(max_bytes=MAX_WORKSPACE_BYTES, max_nodes=50_000)


def _refuse(exc: YamlInputError) -> wp.WorkspaceFileError:
    return wp.WorkspaceFileError(str(exc))


def workspace_from_text(text: str, source: str) -> tuple[Workspace, dict]:
    """The validated workspace in ``text`` (and the parsed document)."""
    source = clean_text(source)
    try:
        body = load_yaml_text(text, source, LIMITS)
    except YamlInputError as exc:
        raise _refuse(exc) from None
    try:
        return workspace_from_dict(body), body  # type: ignore[return-value]
    except WorkspaceError as exc:
        raise wp.WorkspaceFileError(f"{source}: {exc.where}: {exc.message}") from None


def workspace_text(path: Path) -> str:
    """The text of a workspace file, refused by type, size or encoding before it is parsed."""
    try:
        return read_yaml_text(path, LIMITS)
    except YamlInputError as exc:
        raise _refuse(exc) from None


def read_workspace(path: Path) -> tuple[Workspace, dict]:
    """A workspace file, read within the limits and validated."""
    return workspace_from_text(workspace_text(path), path.name)


def workspace_from_upload(name: str, payload: bytes) -> tuple[Workspace, dict]:
    """An uploaded workspace (the dashboard's file uploader holds it in memory)."""
    if len(payload) > MAX_WORKSPACE_BYTES:
        raise wp.WorkspaceFileError(
            f"{clean_text(name)}: is larger than {MAX_WORKSPACE_BYTES // 1024} KiB; shorten it"
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise wp.WorkspaceFileError(
            f"{clean_text(name)}: is not UTF-8 text (byte {exc.start:,}); save it as UTF-8"
        ) from None
    return workspace_from_text(text, name)


def check_workspace_file(path: Path) -> None:
    """Refuse a workspace file before an import opens the warehouse (the import reads it again)."""
    read_workspace(path)
