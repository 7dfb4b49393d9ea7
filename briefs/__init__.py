"""Buy/no-buy briefs, the quarterly futures-day review and CI regression gates."""

from briefs.brief import (
    BUY,
    DEFER,
    KEEP,
    NO_BUY,
    Comparison,
    Recommendation,
    RuleCheck,
    Thresholds,
    brief_document,
    build_comparison,
    recommend,
    recommendations,
    render_brief,
)
from briefs.render import FORMATS, MEDIA_TYPES, render_document

__all__ = [
    "BUY",
    "DEFER",
    "FORMATS",
    "KEEP",
    "MEDIA_TYPES",
    "NO_BUY",
    "Comparison",
    "Recommendation",
    "RuleCheck",
    "Thresholds",
    "brief_document",
    "build_comparison",
    "recommend",
    "recommendations",
    "render_brief",
    "render_document",
]
