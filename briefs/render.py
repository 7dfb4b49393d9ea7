"""Render a :class:`~briefs.document.Document` as Markdown, self-contained HTML, PDF,
XLSX or CSV. Every text cell of a spreadsheet export passes through ``tokendesk.exports`` so a
hostile source title is written inert."""

from __future__ import annotations

import html
import io
import re

import pandas as pd

from briefs.document import BarChart, Bullets, Document, Paragraph, Table
from briefs.figures import drawing, svg
from planning.verdicts import VERDICT_WORDS
from tokendesk.exports import neutralise, safe_csv
from tokendesk.formatting import link_text
from tokendesk.textsafety import clean_text, safe_message

# reportlab and openpyxl are imported inside the PDF and XLSX writers, a measured start-up cost:
# about 0.3 s and 0.4 s on the dev box, paid only when a PDF or a workbook is written.

FORMATS = ("md", "html", "pdf", "xlsx", "csv")


#: A web address shown as a link: http(s) and URL characters only (no quotes, brackets, spaces).
_SAFE_URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&*+,;=%-]+")


def safe_url(text: object) -> str | None:
    """``text`` if it is exactly one plain http(s) address, else None."""
    value = str(text).strip()
    return value if _SAFE_URL.fullmatch(value) else None


def render_document(doc: Document, fmt: str) -> bytes:
    fmt = fmt.lower().lstrip(".")
    if fmt == "markdown":
        fmt = "md"
    renderers = {"md": markdown, "html": html_page, "pdf": pdf, "xlsx": xlsx, "csv": csv}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](doc)


# -- Markdown ---------------------------------------------------------------------------------
#: Characters that make links, images, HTML, code, tables or math out of text: a provider named
#: ``![x](https://...)`` or ``<script>`` must print as those characters. (Emphasis characters
#: are left alone: at worst they italicise, and escaping them would garble every snake_case id.)
_MD_SPECIAL = re.compile(r"([\\`\[\]<>!|&$])")


def _md_text(text: object) -> str:
    """Any text of the document, escaped for Markdown, control characters and secrets removed,
    on one line: a line break inside a name would otherwise start a heading or a list item in
    the middle of a paragraph."""
    cleaned = safe_message(str(text), limit=10_000).replace("\r", " ").replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", cleaned)


def _md_value(text: object) -> str:
    url = safe_url(text)
    return f"<{url}>" if url else _md_text(text)


def _md_cell(text: str) -> str:
    return _md_value(text).replace("\n", " ")


def _md_table(t: Table) -> list[str]:
    shown = t.display()
    out = [f"**{_md_text(t.title)}**", ""]
    if shown.empty:
        return [*out, "_(none)_", ""]
    out.append("| " + " | ".join(_md_cell(str(c)) for c in shown.columns) + " |")
    out.append("|" + "|".join("---" for _ in shown.columns) + "|")
    for row in shown.itertuples(index=False):
        out.append("| " + " | ".join(_md_cell(str(v)) for v in row) + " |")
    if t.note:
        out += ["", f"_{_md_text(t.note)}_"]
    return [*out, ""]


def _md_chart(c: BarChart) -> list[str]:
    width = 30
    top = max([*(v for v in c.values if v == v), *(c.high or ()), 0.0]) or 1.0
    out = [f"**{_md_text(c.title)}** ({_md_text(c.unit)})", "", "```"]
    label_w = max((len(lbl) for lbl in c.labels), default=0)
    for i, (label, value) in enumerate(zip(c.labels, c.values, strict=True)):
        bar = "█" * max(int(round(value / top * width)), 0) if value == value else ""
        extra = ""
        if c.low is not None and c.high is not None:
            extra = f"  (range {c.value_format(c.low[i])} – {c.value_format(c.high[i])})"
        group = f"  [{c.groups[i]}]" if c.groups else ""
        # Inside a code fence nothing renders; only a run of backticks could end it early.
        line = f"{label.ljust(label_w)}  {bar} {c.value_format(value)}{extra}{group}"
        out.append(clean_text(line).replace("`", "'"))
    return [*out, "```", ""]


def markdown(doc: Document) -> bytes:
    out = [f"# {_md_text(doc.title)}", "", _md_text(doc.subtitle), ""]
    out += [f"- **{_md_text(k)}:** {_md_value(v)}" for k, v in doc.meta] + [""]
    for section in doc.sections:
        out += [f"## {_md_text(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Paragraph):
                out += [_md_text(block.text), ""]
            elif isinstance(block, Bullets):
                if block.title:
                    out += [f"**{_md_text(block.title)}**", ""]
                out += [f"- {_md_text(item)}" for item in block.items] + [""]
            elif isinstance(block, Table):
                out += _md_table(block)
            elif isinstance(block, BarChart):
                out += _md_chart(block)
    return ("\n".join(out).rstrip() + "\n").encode("utf-8")


# -- HTML -------------------------------------------------------------------------------------
_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1180px;
     margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em;margin-bottom:.2em}
h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.4em 0 1.2em;font-size:.82em}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f1f4f8;text-align:left}
td{overflow-wrap:normal;word-break:normal;hyphens:none}
td.num{white-space:nowrap;text-align:right}
.fig{white-space:nowrap}
td a{overflow-wrap:anywhere}
caption{text-align:left;font-weight:bold;padding:.3em 0}
.meta{color:#555;font-size:.9em}
.note{color:#666;font-size:.85em}
.rec-buy{color:#2e7d32;font-weight:bold}
.rec-no-buy{color:#c62828;font-weight:bold}
.rec-defer{color:#ef8f00;font-weight:bold}
.rec-keep{color:#1565c0;font-weight:bold}
figure{margin:1em 0}figcaption{color:#666;font-size:.85em}
"""


_NUMERIC = re.compile(r"[−+-]?[$€]?[\d,.]+\s?(%|ms|w|/month|/h)?")


NUM_TD = '<td class="num">'


def _numeric(text: str) -> bool:
    """A figure (money, a count, a share): never wrapped inside itself."""
    return bool(_NUMERIC.fullmatch(text.strip()))


_SIGNED_FIGURE = re.compile(r"[−+-]\$[\d,.]+")


def _html_text(text: object) -> str:
    """Any text of the document, HTML-escaped, control characters and secrets removed; a signed
    amount (−$11,322) is kept on one line with its sign."""
    escaped = html.escape(safe_message(str(text), limit=10_000))
    return _SIGNED_FIGURE.sub(lambda m: f'<span class="fig">{m.group(0)}</span>', escaped)


def _html_cell(text: str) -> str:
    url = safe_url(text)
    if url:
        link = html.escape(url)
        return f'<a href="{link}">{link}</a>'
    escaped = _html_text(text)
    if text in VERDICT_WORDS:
        return f'<span class="rec-{text}">{escaped}</span>'
    return escaped


def html_page(doc: Document) -> bytes:

    e = _html_text
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(doc.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(doc.title)}</h1>",
        f"<p>{e(doc.subtitle)}</p>",
        '<ul class="meta">'
        + "".join(f"<li><b>{e(k)}:</b> {_html_cell(v)}</li>" for k, v in doc.meta)
        + "</ul>",
    ]
    for section in doc.sections:
        out.append(f"<h2>{e(section.title)}</h2>")
        for block in section.blocks:
            if isinstance(block, Paragraph):
                out.append(f"<p>{e(block.text)}</p>")
            elif isinstance(block, Bullets):
                if block.title:
                    out.append(f"<h3>{e(block.title)}</h3>")
                out.append("<ul>" + "".join(f"<li>{e(i)}</li>" for i in block.items) + "</ul>")
            elif isinstance(block, Table):
                shown = block.display()
                rows = [
                    "<table>",
                    f"<caption>{e(block.title)}</caption>",
                    "<thead><tr>"
                    + "".join(f"<th>{e(str(c))}</th>" for c in shown.columns)
                    + "</tr></thead><tbody>",
                ]
                if shown.empty:
                    rows.append(f'<tr><td colspan="{max(len(shown.columns), 1)}">(none)</td></tr>')
                for row in shown.itertuples(index=False):
                    rows.append(
                        "<tr>"
                        + "".join(
                            (NUM_TD if _numeric(str(v)) else "<td>") + f"{_html_cell(str(v))}</td>"
                            for v in row
                        )
                        + "</tr>"
                    )
                rows.append("</tbody></table>")
                if block.note:
                    rows.append(f'<p class="note">{e(block.note)}</p>')
                out.append("".join(rows))
            elif isinstance(block, BarChart):
                caption = f"<figcaption>{e(block.note)}</figcaption>" if block.note else ""
                out.append(
                    f'<figure role="img" aria-label="{e(block.title)}">{svg(block)}{caption}</figure>'
                )
    out.append("</body></html>")
    return "\n".join(out).encode("utf-8")


# -- PDF --------------------------------------------------------------------------------------
#: An http(s) address inside a longer text.
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"']*[^\s<>\"'.,;:)]")


def _shown_words(text: str) -> list[str]:
    """The words a PDF cell shows for ``text``: each address as its short link text."""
    return _URL_IN_TEXT.sub(lambda m: link_text(m.group(0)), text).split()


#: The smallest text a printed brief sets (points): a table too wide for the page at this size is
#: split into column groups instead of shrinking further (4 pt tables were unreadable on paper).
MIN_PDF_PT = 7.0


def _word_widths(
    shown: pd.DataFrame, font: str, bold: str, size: float, pad_pt: float
) -> tuple[list[float], list[float]]:
    """Per column: (the widest word, the widest whole cell on one line), padding included."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    minimum, desired = [], []
    for column in shown.columns:
        cells = [str(v) for v in shown[column]]
        word = max(
            [stringWidth(w, font, size) for v in cells for w in _shown_words(v)]
            + [stringWidth(w, bold, size) for w in str(column).split()]
            + [stringWidth("—", font, size)]
        )
        line = max([stringWidth(" ".join(_shown_words(v)), font, size) for v in cells] + [word])
        minimum.append(word + pad_pt)
        desired.append(line + pad_pt)
    return minimum, desired


def _col_widths(
    shown: pd.DataFrame, total: float, font: str, bold: str, size: float, pad_pt: float = 6.0
) -> tuple[list[float], float]:
    """Column widths and the font size that let every word and figure sit whole in its cell:
    each column gets at least its widest word (a date, an id, a figure, a header word, a link's
    short text); the width left over goes to the columns of long text, in proportion to how much
    more they would need to fit on one line. If even the widest words do not fit, the font
    shrinks, never below :data:`MIN_PDF_PT` (then reportlab splits the longest words): the text
    shrinks, the cell padding (``pad_pt``, more than the grid's) does not."""
    minimum, desired = _word_widths(shown, font, bold, size, pad_pt)
    if sum(minimum) > total:
        padding = pad_pt * len(minimum)
        scale = max(total - padding, 1.0) / (sum(minimum) - padding)
        if size * scale * 0.98 < MIN_PDF_PT:
            return [total * m / sum(minimum) for m in minimum], MIN_PDF_PT
        widths = [(w - pad_pt) * scale + pad_pt for w in minimum]
        return widths, size * scale * 0.98
    if sum(desired) <= total:
        return [w * total / sum(desired) for w in desired], size
    spare = total - sum(minimum)
    extra = [d - m for d, m in zip(desired, minimum, strict=True)]
    return [m + spare * e / sum(extra) for m, e in zip(minimum, extra, strict=True)], size


def _column_groups(
    shown: pd.DataFrame, total: float, font: str, bold: str, size: float, pad_pt: float = 6.0
) -> list[pd.DataFrame]:
    """``shown`` as one table if its widest words fit across the page at ``size``, else as
    several tables side by side in reading order, each repeating the first column (what the
    row is) so that every part reads on its own at a legible size."""
    minimum, _ = _word_widths(shown, font, bold, size, pad_pt)
    if sum(minimum) <= total or len(minimum) <= 2:
        return [shown]
    key, used = minimum[0], minimum[0]
    groups: list[list[int]] = []
    current: list[int] = []
    for index, width in enumerate(minimum[1:], start=1):
        if current and used + width > total:
            groups.append(current)
            current, used = [], key
        current.append(index)
        used += width
    groups.append(current)
    return [shown.iloc[:, [0, *group]] for group in groups]


def _link(url: str) -> str:
    target = html.escape(url)
    return f'<a href="{target}" color="#1a56a8">{html.escape(link_text(url), quote=False)}</a>'


def _pdf_cell(text: str) -> str:
    """``text`` as reportlab markup: each address a short link text whose target is the full
    address (an address never wraps a few characters a line)."""
    from tokendesk.pdf import markup

    url = safe_url(text)
    if url:
        return _link(url)
    out, start = [], 0
    for match in _URL_IN_TEXT.finditer(text):
        out += [markup(text[start : match.start()]), _link(match.group(0))]
        start = match.end()
    return "".join([*out, markup(text[start:])])


# Long by design: the PDF's styles, then its story appended in reading order (meta, then each
# section's blocks) with those styles; split, the page's order would be read across functions.
def pdf(doc: Document) -> bytes:
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import KeepTogether, PageBreak, Spacer
    from reportlab.platypus import Paragraph as P

    from tokendesk.pdf import PAGE, fonts, grid_table, landscape_document, markup, plain

    regular, bold = fonts()
    base = getSampleStyleSheet()
    body = ParagraphStyle(
        "body",
        parent=base["BodyText"],
        fontName=regular,
        fontSize=8,
        leading=10,
        spaceBefore=1,
        spaceAfter=1,
    )
    small = ParagraphStyle("small", parent=body, fontSize=7, leading=8.5)
    h1 = ParagraphStyle(
        "h1", parent=base["Title"], fontName=bold, fontSize=15, leading=18, alignment=0
    )
    h2 = ParagraphStyle(
        "h2",
        parent=base["Heading2"],
        fontName=bold,
        fontSize=12,
        leading=15,
        spaceBefore=8,
        keepWithNext=1,
    )
    h3 = ParagraphStyle(
        "h3", parent=body, fontName=bold, fontSize=9, spaceBefore=2, spaceAfter=1, keepWithNext=1
    )
    note = ParagraphStyle("note", parent=small, textColor=colors.HexColor("#555555"))
    buffer = io.BytesIO()
    template, frame_w = landscape_document(
        buffer, title=doc.title, subject=doc.subtitle, margin_mm=12, bottom_margin_mm=14
    )
    margin = 12 * mm

    def footer(canvas, _doc) -> None:
        canvas.saveState()
        canvas.setFont(regular, 7)
        canvas.setFillColor(colors.grey)
        canvas.drawString(margin, 7 * mm, plain(f"{doc.title} — {doc.subtitle}")[:150])
        canvas.drawRightString(PAGE[0] - margin, 7 * mm, f"page {canvas.getPageNumber()}")
        canvas.restoreState()

    story: list = [P(markup(doc.title), h1), P(markup(doc.subtitle), body), Spacer(1, 3)]
    # The key/value lines run on as one paragraph (page 1 is for the decision); a link stays whole.
    story.append(
        P(
            " · ".join(
                f"<b>{markup(k)}:</b> {_pdf_cell(v)}" for k, v in doc.meta if not safe_url(v)
            ),
            small,
        )
    )
    for k, v in doc.meta:
        url = safe_url(v)
        if url:  # on a line of its own, the address in full: a printed page has no link target
            link = html.escape(url)
            story.append(
                P(f'<b>{markup(k)}:</b> <a href="{link}" color="#1a56a8">{link}</a>', small)
            )
    for index, section in enumerate(doc.sections):
        if section.new_page and index:
            story.append(PageBreak())
        story.append(P(markup(section.title), h2))
        for block in section.blocks:
            if isinstance(block, Paragraph):
                story.append(P(markup(block.text), body))
                story.append(Spacer(1, 3))
            elif isinstance(block, Bullets):
                if block.title:
                    story.append(P(markup(block.title), h3))
                for item in block.items:
                    story.append(P(_pdf_cell(item), body, bulletText="•"))
                story.append(Spacer(1, 3))
            elif isinstance(block, BarChart):
                # Page 1 holds the decision: more bars, thinner bars.
                bar_h = 11 if len(block.labels) <= 3 else 8
                parts = [drawing(block, width=min(frame_w, 620), bar_h=bar_h)]
                if block.note:
                    parts.append(P(markup(block.note), note))
                story.append(KeepTogether(parts))
                story.append(Spacer(1, 2))
            elif isinstance(block, Table):
                shown = block.display()
                title = P(markup(block.title), h3)
                if shown.empty:
                    story += [title, P("(none)", small)]
                    continue
                parts = _column_groups(shown, frame_w, regular, bold, small.fontSize)
                story.append(title)
                for number, part in enumerate(parts, start=1):
                    if len(parts) > 1:
                        story.append(P(f"part {number} of {len(parts)} (columns)", note))
                    widths, size = _col_widths(part, frame_w, regular, bold, small.fontSize)
                    cell = ParagraphStyle("cell", parent=small, fontSize=size, leading=size * 1.22)
                    cell_head = ParagraphStyle("cell_head", parent=cell, fontName=bold)
                    data = [[P(markup(str(c)), cell_head) for c in part.columns]]
                    data += [
                        [P(_pdf_cell(str(v)), cell) for v in row]
                        for row in part.itertuples(index=False)
                    ]
                    story += [grid_table(data, widths, padding_pt=(1.5, 2.5)), Spacer(1, 3)]
                if block.note:
                    story.append(P(markup(block.note), note))
                story.append(Spacer(1, 5))
    template.build(story, onFirstPage=footer, onLaterPages=footer)
    return buffer.getvalue()


# -- XLSX -------------------------------------------------------------------------------------
def xlsx(doc: Document) -> bytes:
    from briefs.workbook import workbook  # openpyxl: paid only when a workbook is written

    return workbook(doc)


# -- CSV --------------------------------------------------------------------------------------
def csv(doc: Document) -> bytes:
    """A header block (title, then the document's key/value lines: date, workspace, link, ...),
    one empty line, then the document's one table with its own header row."""
    import csv as csv_module

    header = io.StringIO()
    writer = csv_module.writer(header, lineterminator="\n")
    for key, value in (("title", doc.title), ("subtitle", doc.subtitle), *doc.meta):
        writer.writerow([neutralise(clean_text(str(key))), neutralise(clean_text(str(value)))])
    writer.writerow([])
    frame = doc.csv_frame.copy()
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(object)
    return header.getvalue().encode("utf-8") + safe_csv(frame)


def csv_table(data: bytes) -> pd.DataFrame:
    """The table part of a CSV this module wrote (after the header block's empty line)."""
    text = data.decode("utf-8")
    _, _, body = text.partition("\n\n")
    return pd.read_csv(io.StringIO(body))
