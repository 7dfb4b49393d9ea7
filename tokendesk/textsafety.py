"""Safe handling of text that comes from outside: files, provider responses, error messages.

Three jobs, each needed wherever such text is stored, printed or shown:

- ``clean_text`` removes control characters (ANSI escape sequences included) so a file name or a
  provider string cannot move a terminal's cursor, recolour it or hide text, and caps its length;
- ``redact_secrets`` replaces cloud keys, tokens and ``Authorization`` headers with a marker, so
  an endpoint that echoes request headers in its error text cannot get a secret stored or printed;
- ``read_limited`` / ``decode_text`` read a file with a size cap and decode it by its byte-order
  mark or as UTF-8, falling back to Latin-1 with a note (never a ``UnicodeDecodeError``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

#: Longest string a record field keeps; a longer cell is rejected, not truncated silently.
MAX_FIELD_CHARS = 2_000
#: Largest input file read whole (prices, results, sheets). /dev/zero stops here too.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest JSON nesting an importer accepts (real result files nest fewer than 10 levels).
MAX_JSON_DEPTH = 64
#: Longest excerpt of an input value an error message repeats.
EXCERPT_CHARS = 60

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-character escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b")
# C0 and C1 controls except tab/newline, plus bidi overrides and zero-width joiners that can
# disguise text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def clean_text(value: str, *, keep_newlines: bool = False) -> str:
    """``value`` without escape sequences and control characters (newlines kept on request)."""
    value = _ANSI.sub("", value)
    value = _CONTROL.sub("", value)
    if not keep_newlines:
        value = value.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    return value


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """At most ``limit`` characters of ``value``'s text, cleaned, with how much was left out.
    Containers are summarised, never walked: an alias bomb must not be expanded to be quoted."""
    if isinstance(value, dict):
        return f"a mapping of {len(value):,} key(s)"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value):,} item(s)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        # Python refuses str() of an int past 4,300 digits (about 14,000 bits): estimate then.
        if value.bit_length() < 14_000:
            return f"a whole number of {len(str(abs(value))):,} digits"
        return f"a whole number of about {int(value.bit_length() * 0.30103):,} digits"
    text = clean_text(value if isinstance(value, str) else repr(value))
    if len(text) <= limit:
        return repr(value) if isinstance(value, str) else text
    return repr(text[:limit]) + f" … ({len(text) - limit:,} more characters)"


def has_control(value: str) -> bool:
    return clean_text(value, keep_newlines=True) != value


_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Authorization / proxy-authorization / api-key style headers, whatever follows on the line.
    (
        re.compile(
            r"(?i)\b((?:proxy-)?authorization|x-amz-security-token|x-api-key|api-key|"
            r"ocp-apim-subscription-key|x-goog-api-key)(\"?\s*[:=]\s*\"?)[^\r\n,;}\]\"]+"
        ),
        r"\1\2[redacted]",
    ),
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}"), "Bearer [redacted]"),
    # AWS access key ids and secrets (the secret only where it is labelled).
    (
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"),
        "[redacted-aws-key-id]",
    ),
    (
        re.compile(
            r"(?i)(aws_secret_access_key|secretaccesskey|aws_session_token|sessiontoken|"
            r"x-amz-security-token)(\"?\s*[:=]\s*\"?)[A-Za-z0-9/+=]{16,}"
        ),
        r"\1\2[redacted]",
    ),
    # A long base64 blob after a session-token-like key is covered above; bare session tokens
    # (IQoJb3JpZ2luX2Vj... is how STS tokens begin) are caught by their prefix.
    (re.compile(r"\bIQoJb3JpZ2lu[A-Za-z0-9/+=]{20,}"), "[redacted-aws-session-token]"),
    # GCP: API keys, OAuth access tokens, service-account private keys.
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), "[redacted-gcp-api-key]"),
    (re.compile(r"\bya29\.[0-9A-Za-z_.-]{20,}"), "[redacted-gcp-token]"),
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S
        ),
        "[redacted-private-key]",
    ),
    # Azure: storage account keys, SAS signatures, connection strings' AccountKey.
    (re.compile(r"(?i)(accountkey|sharedaccesskey)=[A-Za-z0-9/+=]{20,}"), r"\1=[redacted]"),
    (re.compile(r"(?i)([?&]sig=)[A-Za-z0-9%/+=]{16,}"), r"\1[redacted]"),
    # JSON Web Tokens (Azure AD, GCP identity tokens).
    (
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
        "[redacted-jwt]",
    ),
    # Generic labelled secrets: password=..., client_secret: ...
    (
        re.compile(
            r"(?i)\b(password|passwd|client_secret|secret_key|private_key|token)(\"?\s*[:=]\s*\"?)[^\s\"',;&}]{6,}"
        ),
        r"\1\2[redacted]",
    ),
)


def redact_secrets(text: str) -> str:
    """``text`` with credentials (cloud keys, tokens, Authorization headers) replaced."""
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def safe_message(text: str, limit: int = 4_000) -> str:
    """An error text fit to store or print: secrets redacted, controls removed, length capped."""
    cleaned = clean_text(redact_secrets(str(text)), keep_newlines=True)
    if len(cleaned) > limit:
        cleaned = cleaned[:limit] + f" … ({len(cleaned) - limit} more characters)"
    return cleaned


def terminal_text(text: str) -> str:
    """``text`` fit to print on a terminal through rich: secrets redacted, escape sequences and
    control characters removed, and rich's ``[markup]`` neutralised."""
    from rich.markup import escape

    return escape(safe_message(text))


class InputFileError(ValueError):
    """A file could not be read as text: too large, not a regular file, binary."""

    def __init__(self, path: str, message: str) -> None:
        self.path, self.message = path, message
        super().__init__(f"{clean_text(path)}: {message}")


@dataclass(frozen=True)
class DecodedText:
    text: str
    encoding: str
    #: Set when the encoding was a guess the user should know about.
    note: str = ""


def read_limited(path: Path | str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, refusing devices, pipes and anything over ``limit``."""
    path = Path(path)
    shown = clean_text(str(path))
    _refuse_special(path, shown)
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputFileError(shown, _too_large(limit))
    return data


def _refuse_special(path: Path, shown: str) -> None:
    if not path.exists():
        raise InputFileError(shown, "no such file; check the path")
    if not path.is_file():
        raise InputFileError(shown, "not a regular file (a directory, device or pipe); pass a file")


def _too_large(limit: int) -> str:
    return f"larger than {limit // (1024 * 1024)} MiB; split it into smaller files"


def decode_text(data: bytes, name: str = "input") -> DecodedText:
    """Decode by byte-order mark (UTF-8, UTF-16, UTF-32), else UTF-8, else Latin-1 with a note.

    Binary content (NUL bytes outside a UTF-16/32 file) is refused with a plain message.
    """
    encoding, note = _choose_encoding([data], name)
    return DecodedText(data.decode(encoding), encoding, note)


@dataclass(frozen=True)
class TextFile:
    """A regular text file within the size cap whose encoding is known (``sniff_text_file``):
    opened again for reading, it is decoded as it streams, never held whole in memory."""

    path: Path
    encoding: str
    #: Set when the encoding was a guess the user should know about.
    note: str = ""

    def open(self) -> IO[str]:
        """The file as text, newline-preserving (what the csv module needs)."""
        return self.path.open(encoding=self.encoding, newline="")


#: Bytes read at a time when a file is checked without holding it whole.
_CHUNK_BYTES = 1024 * 1024


def sniff_text_file(
    path: Path | str, limit: int = MAX_FILE_BYTES, name: str | None = None
) -> TextFile:
    """What ``read_limited`` + ``decode_text`` decide about a file (the same refusals, the same
    encoding and note), read in chunks so that memory does not grow with the file."""
    path = Path(path)
    shown = clean_text(str(path))
    _refuse_special(path, shown)
    if path.stat().st_size > limit:
        raise InputFileError(shown, _too_large(limit))

    def chunks() -> Iterator[bytes]:
        total = 0
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK_BYTES):
                total += len(chunk)
                if total > limit:
                    raise InputFileError(shown, _too_large(limit))
                yield chunk

    encoding, note = _choose_encoding(chunks(), name or shown)
    return TextFile(path, encoding, note)


def _choose_encoding(chunks: Iterable[bytes], name: str) -> tuple[str, str]:
    """(encoding, note) of the bytes ``chunks`` yields, all of which must decode with it; the
    rules of ``decode_text``. The chunks are read once, one at a time."""
    stream = iter(chunks)
    head = next(stream, b"")
    # The first 64 KiB decide; a first chunk shorter than that is topped up.
    while len(head) < 65536:
        more = next(stream, b"")
        if not more:
            break
        head += more
    boms = (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe\x00\x00", "utf-32"),
        (b"\x00\x00\xfe\xff", "utf-32"),
        (b"\xff\xfe", "utf-16"),
        (b"\xfe\xff", "utf-16"),
    )
    for bom, encoding in boms:
        if head.startswith(bom):
            try:
                sample = _decode_all(head, stream, encoding)
            except UnicodeDecodeError:
                raise InputFileError(
                    name, f"starts with a {encoding} byte-order mark but is not {encoding} text"
                ) from None
            if _looks_binary(sample):
                raise InputFileError(name, "is binary (control bytes), not a text file")
            return encoding, ""
    if b"\x00" in head[:65536]:
        # UTF-16-LE without a BOM: ASCII text has a NUL in every odd byte and none in the even.
        sample_bytes = head[:4096]
        half = len(sample_bytes) // 2
        if (
            len(sample_bytes) >= 4
            and sample_bytes[1::2].count(0) > half * 0.9
            and sample_bytes[0::2].count(0) < half * 0.1
        ):
            try:
                sample = _decode_all(head, stream, "utf-16-le")
            except UnicodeDecodeError:
                sample = ""
            if sample and not _looks_binary(sample):
                return "utf-16-le", "read as UTF-16-LE (no byte-order mark)"
        raise InputFileError(
            name, "is binary (contains NUL bytes), not a text file; export it as CSV or JSON text"
        )
    encoding, note = "utf-8", ""
    try:
        sample = _decode_all(head, stream, "utf-8")
    except _BadByte as exc:
        encoding = "latin-1"
        note = f"not valid UTF-8 (byte {exc.offset}); read as Latin-1 — save it as UTF-8 to be sure"
        sample = head.decode("latin-1")
        for _ in stream:  # the rest is read for the size limit; Latin-1 decodes any byte
            pass
    if _looks_binary(sample):
        raise InputFileError(
            name, "is binary (control bytes), not a text file; export it as CSV or JSON text"
        )
    return encoding, note


class _BadByte(UnicodeDecodeError):
    """A UTF-8 error with the offset of the bad byte from the start of the file."""

    def __init__(self, error: UnicodeDecodeError, offset: int) -> None:
        super().__init__(error.encoding, error.object, error.start, error.end, error.reason)
        self.offset = offset


def _decode_all(head: bytes, rest: Iterator[bytes], encoding: str) -> str:
    """Decode ``head`` and then every chunk of ``rest`` with ``encoding`` (raising
    UnicodeDecodeError where one does not decode); return the first 64K characters."""
    decoder = codecs.getincrementaldecoder(encoding)()
    sample = ""
    offset = 0  # bytes of the file fed to the decoder before this chunk
    chunk = head
    while True:
        final = not chunk
        pending = len(decoder.getstate()[0])
        try:
            text = decoder.decode(chunk, final=final)
        except UnicodeDecodeError as exc:
            raise _BadByte(exc, offset - pending + exc.start) from None
        if len(sample) < 65536:
            sample += text[: 65536 - len(sample)]
        if final:
            return sample
        offset += len(chunk)
        chunk = next(rest, b"")


def _looks_binary(text: str) -> bool:
    """Many control characters in the first 64K: more than 3% (and more than 4) that text never
    holds. Escape sequences, bell and backspace are left to ``clean_text``: a text file with a
    coloured name in it is text, and is read and cleaned."""
    sample = text[:65536]
    controls = sum(
        1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f\x1b\x07\x08") or ch == "\x7f"
    )
    return controls > max(4, len(sample) * 3 // 100)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth_ok(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True if ``text`` (JSON) nests no deeper than ``limit``; checked before parsing, so a file
    nested 100k deep never reaches the recursive parser."""
    depth = 0
    for match in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return False
        else:
            depth -= 1
    return True
