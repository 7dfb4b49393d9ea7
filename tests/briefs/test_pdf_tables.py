"""PDF tables lay out dates, ids, header words and addresses whole: a wide evidence table (more
columns than the page holds at the normal size) keeps each one on one line, and an address reads
as a short link text whose target is the full address."""

from __future__ import annotations

import io

import pandas as pd
from pypdf import PdfReader

from briefs.document import Document, Section, table
from briefs.render import pdf

URL = "https://github.com/skypilot-org/skypilot-catalog/blob/master/catalogs/v7/gcp/vms.csv"
DATES = ("2024-08-28", "2023-12-06", "2026-05-18")
IDS = (
    "prices-azure-20261201T201901-2b75e0",
    "benchmarks-seed-seed-results-20261201T201902-2e7545",
    "Standard_ND96isr_H200_v5",
)


def _evidence() -> Document:
    rows = [
        {
            "snapshot": snapshot,
            "provider": "azure",
            "instance type": instance,
            "accelerator": "nvidia-h200-141gb",
            "pricing model": "On demand",
            "precision": "fp8",
            "runtime version": "0.6.3.post1",
            "$/h": "$98.32",
            "$/1K output tokens": "$0.000517",
            "FTL p95": "1,234 ms",
            "observed": day,
            "measured": day,
            "confidence": "low",
            "source": URL,
            "note": f"Sum of two catalog rows, see {URL}.",
        }
        for snapshot, instance, day in zip(
            IDS[:2] * 2, (IDS[2],) * 4, DATES + DATES[:1], strict=True
        )
    ]
    frame = pd.DataFrame(rows)
    return Document(
        title="Evidence",
        subtitle="test",
        meta=(("Generated", "2026-12-01"),),
        sections=(Section("Evidence", (table("Prices behind the saving", frame),)),),
        assumptions=pd.DataFrame({"name": [], "value": []}),
        csv_frame=frame,
    )


def _pdf_text_and_links(data: bytes) -> tuple[list[str], list[str]]:
    reader = PdfReader(io.BytesIO(data))
    lines = [line for page in reader.pages for line in page.extract_text().splitlines()]
    links = [
        annotation.get_object()["/A"]["/URI"]
        for page in reader.pages
        for annotation in page.get("/Annots") or []
        if "/A" in annotation.get_object()
    ]
    return lines, links


def test_dates_ids_and_header_words_sit_whole_on_one_line():
    lines, _ = _pdf_text_and_links(pdf(_evidence()))
    text = "\n".join(lines)
    for value in (*DATES, *IDS, "nvidia-h200-141gb", "0.6.3.post1", "$0.000517", "precision"):
        assert any(value in line for line in lines), f"{value!r} is broken:\n{text}"


def test_an_address_is_a_short_link_text_with_the_full_address_as_its_target():
    lines, links = _pdf_text_and_links(pdf(_evidence()))
    text = "\n".join(lines)
    assert "github.com/…/vms.csv" in text
    assert "skypilot-catalog/blob" not in text  # the long address is not printed piecemeal
    assert links and set(links) == {URL}


def _smallest_text_pt(data: bytes) -> float:
    """The smallest size any text on any page is drawn at: the font size of each text run times
    the vertical scale of its text and drawing matrices (as a reader's PDF viewer sets it)."""
    sizes: list[float] = []

    def visit(text, cm, tm, _font, size) -> None:
        if text.strip():
            sizes.append(abs(size * (tm[3] or 1) * (cm[3] or 1)))

    for page in PdfReader(io.BytesIO(data)).pages:
        page.extract_text(visitor_text=visit)
    assert sizes, "no text found in the PDF"
    return min(sizes)


def test_a_table_wider_than_the_page_is_split_not_set_below_7_pt():
    wide = _evidence()
    data = pdf(wide)
    assert _smallest_text_pt(data) >= 7.0
    lines, _ = _pdf_text_and_links(data)
    # Every part repeats what the row is (its first column) and says which part it is.
    assert any("part 2 of" in line for line in lines), "\n".join(lines)
    assert sum(line.strip() == "snapshot" for line in lines) >= 2


def test_the_market_brief_sets_no_text_below_7_pt(market_brief):
    assert _smallest_text_pt(pdf(market_brief.document)) >= 7.0
