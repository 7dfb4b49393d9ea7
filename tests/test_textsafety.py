"""Text from outside: escape sequences stripped, secrets redacted, encodings detected."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from tokendesk.textsafety import (
    InputFileError,
    clean_text,
    decode_text,
    json_depth_ok,
    read_limited,
    redact_secrets,
    sniff_text_file,
    terminal_text,
)
from warehouse import Warehouse

PRICE_CSV = (
    "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
    "usd_per_hour,source,observed_at\n"
    "müllercloud,eu-1,x8,nvidia-h100-sxm-80gb,8,on_demand,20.0,Preisliste Müller,2026-11-01\n"
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("error: AKIAIOSFODNN7EXAMPLE denied", "AKIAIOSFODNN7EXAMPLE"),
        ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
        ("X-Amz-Security-Token: IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3Q", "IQoJb3JpZ2lu"),
        ('{"headers": {"Authorization": "AWS4-HMAC-SHA256 Credential=abc/2026"}}', "AWS4-HMAC"),
        ("Authorization: Bearer abc.def.ghi-token-value", "abc.def.ghi"),
        ("key=AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890"),
        ("token ya29.a0AfH6SMBexampleexampleexampleexample", "ya29.a0AfH6"),
        ("DefaultEndpointsProtocol=https;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6==;", "Zm9vYmFy"),
        (
            "https://acct.blob.core.windows.net/c?sv=2024&sig=abcdEFGH1234abcdEFGH1234%3D",
            "abcdEFGH",
        ),
        ("id eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4eXoifQ.c2lnbmF0dXJlLXZhbHVl", "eyJhbGciOi"),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----", "MIIEvQ"),
    ],
)
def test_secrets_are_redacted(text, secret):
    assert secret not in redact_secrets(text)
    assert secret not in terminal_text(text)


def test_escape_sequences_and_controls_are_removed():
    assert clean_text("\x1b[31mred\x1b[0m\x1b]0;title\x07 name\x00\u202e") == "red name"
    assert terminal_text("[bold]x[/bold]") == "\\[bold]x\\[/bold]"  # rich markup inert


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (PRICE_CSV.encode("utf-8"), "utf-8"),
        (b"\xef\xbb\xbf" + PRICE_CSV.encode("utf-8"), "utf-8-sig"),
        (PRICE_CSV.encode("utf-16"), "utf-16"),
        (PRICE_CSV.encode("utf-16-le"), "utf-16-le"),
        (PRICE_CSV.encode("latin-1"), "latin-1"),
    ],
)
def test_encodings_are_detected(data, encoding):
    decoded = decode_text(data)
    assert decoded.encoding == encoding and decoded.text == PRICE_CSV
    assert bool(decoded.note) == (encoding in ("latin-1", "utf-16-le"))


def test_binary_is_refused_plainly():
    with pytest.raises(InputFileError, match="binary"):
        decode_text(bytes(range(256)) * 4, "blob.csv")


def test_json_depth_limit_ignores_brackets_in_strings():
    assert json_depth_ok('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')
    assert not json_depth_ok("[" * 65 + "]" * 65)


@pytest.mark.parametrize(
    ("encode", "noted"),
    [
        (lambda t: t.encode("utf-16"), False),
        (lambda t: b"\xef\xbb\xbf" + t.encode(), False),
        (lambda t: t.encode("latin-1"), True),
    ],
    ids=["utf-16", "utf-8-bom", "latin-1"],
)
def test_db_ingest_reads_excel_and_legacy_encodings(encode, noted, tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    Warehouse.open(db, build=False).close()
    sheet = tmp_path / "sheet.csv"
    sheet.write_bytes(encode(PRICE_CSV))
    with pytest.raises(SystemExit) as done:
        main(["db", "ingest", str(sheet), "--db", str(db)])
    assert done.value.code in (0, None), capsys.readouterr().err
    with Warehouse.open(db, read_only=True) as warehouse:
        quotes = warehouse.current_price_quotes("müllercloud")
        notes = warehouse.snapshots().notes.tolist()
    assert [q.source for q in quotes] == ["Preisliste Müller"]
    assert any("read as Latin-1" in n for n in notes) == noted


HOSTILE = Path(__file__).parent / "fixtures" / "hostile"


def _whole(path: Path) -> tuple[str, str] | str:
    try:
        decoded = decode_text(read_limited(path), path.name)
    except InputFileError as exc:
        return exc.message
    return decoded.encoding, decoded.note


def _chunked(path: Path) -> tuple[str, str] | str:
    try:
        found = sniff_text_file(path, name=path.name)
    except InputFileError as exc:
        return exc.message
    return found.encoding, found.note


@pytest.mark.parametrize(
    "path", sorted(p for p in HOSTILE.iterdir() if p.suffix in (".csv", ".json")), ids=str
)
def test_a_file_checked_in_chunks_gets_the_whole_file_decision(path):
    assert _chunked(path) == _whole(path)


def test_a_bad_utf8_byte_past_the_first_chunk_is_found_at_its_offset(tmp_path, monkeypatch):
    import tokendesk.textsafety as textsafety

    monkeypatch.setattr(textsafety, "_CHUNK_BYTES", 1000)  # many chunks, a split sequence
    data = ("é" * 40_000).encode() + b"\xff" + "ü".encode()
    path = tmp_path / "prices.csv"
    path.write_bytes(data)
    assert _chunked(path) == _whole(path)
    assert "(byte 80000)" in _chunked(path)[1]
    with sniff_text_file(path).open() as handle:
        assert handle.read() == data.decode("latin-1")


def test_a_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(b"a,b\n" * 300)
    assert "larger than" in _chunked_with_limit(path, 1024)  # 1,200 bytes against 1,024


def _chunked_with_limit(path: Path, limit: int) -> str:
    with pytest.raises(InputFileError) as refused:
        sniff_text_file(path, limit=limit)
    return refused.value.message
