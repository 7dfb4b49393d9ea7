"""Documents only: the buy/no-buy brief of an evaluation (Markdown, HTML, PDF, XLSX, CSV), the
quarterly futures-day review and CI regression gates.

Each module is imported by name (``briefs.render``, ``briefs.workspace_plans`` …): importing the
package loads none of them, so a page that only reads a verdict's words does not load the PDF
and workbook libraries."""
