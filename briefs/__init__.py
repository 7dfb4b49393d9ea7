"""Documents only: the buy/no-buy brief of an evaluation (Markdown, HTML, PDF, XLSX, CSV), the
quarterly futures-day review and CI regression gates."""

from briefs.render import FORMATS, MEDIA_TYPES, render_document

__all__ = ["FORMATS", "MEDIA_TYPES", "render_document"]
