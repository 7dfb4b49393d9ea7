import csv
import io

import pandas as pd

from tokendesk.exports import neutralise, safe_csv


def test_formula_cells_are_exported_inert():
    hostile = '=HYPERLINK("http://x","y")'
    frame = pd.DataFrame(
        {
            "source": [hostile, "+1", "-2", "@SUM(A1)", "plain"],
            "usd_per_hour": [1.0, 2.0, -3.0, 4.0, 5.0],
        }
    )
    rows = list(csv.DictReader(io.StringIO(safe_csv(frame).decode())))
    assert [r["source"] for r in rows] == [f"'{hostile}", "'+1", "'-2", "'@SUM(A1)", "plain"]
    assert [r["usd_per_hour"] for r in rows] == [
        "1.0",
        "2.0",
        "-3.0",
        "4.0",
        "5.0",
    ]  # numbers stay numbers
    assert neutralise(42) == 42 and neutralise("\tcmd") == "' cmd"


HOSTILE = "chat\x1b[2J\x07\u202eevil\nname"


def test_csv_cells_and_headers_lose_escapes_bells_bidi_overrides_and_line_breaks():
    frame = pd.DataFrame({HOSTILE: [HOSTILE, "=1+1"]})
    text = safe_csv(frame).decode()
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows == [["chatevil name"], ["chatevil name"], ["'=1+1"]]
    assert neutralise("\x1b=cmd") == "'=cmd"  # a formula hidden behind an escape


def _document(text: str):
    from briefs.document import Document, Paragraph, Section, Table

    table = Table(text, pd.DataFrame({text: [text]}))
    return Document(
        title="Brief",
        subtitle="",
        meta=(),
        sections=(Section("Decision", (Paragraph(f"Serve {text} on Stay."), table)),),
        assumptions=pd.DataFrame(),
        csv_frame=pd.DataFrame({text: [text]}),
    )


def test_a_line_break_in_a_name_starts_no_heading_in_the_markdown_brief():
    from briefs.render import render_document

    md = render_document(_document("chat\n# Buy everything"), "md").decode()
    assert not any(line.startswith("# Buy") for line in md.splitlines())
    assert "Serve chat # Buy everything on Stay." in md


def test_xlsx_headers_and_cells_and_csv_briefs_are_neutralised():
    from openpyxl import load_workbook

    from briefs.render import render_document

    doc = _document(HOSTILE)
    book = load_workbook(io.BytesIO(render_document(doc, "xlsx")))
    values = [
        str(c.value) for ws in book.worksheets for row in ws.iter_rows() for c in row if c.value
    ]
    assert values and not any(bad in v for v in values for bad in ("\x1b", "\x07", "\u202e"))
    assert not any(bad in ws.title for ws in book.worksheets for bad in ("\x1b", "\u202e"))
    brief_csv = render_document(doc, "csv").decode()
    assert not any(bad in brief_csv for bad in ("\x1b", "\x07", "\u202e"))
