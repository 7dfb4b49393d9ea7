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
