"""Show text that came from outside (provider names, instance types, file names, error messages)
as plain text in Streamlit's markdown-rendering elements.

``st.caption``, ``st.info``/``warning``/``error``/``success``, ``st.markdown`` and metric help
render Markdown: a provider called ``![x](https://attacker/p.png)`` would make every visitor's
browser fetch a remote image, and ``[click](javascript:…)`` would be a link. ``plain`` escapes
every character Markdown (and Streamlit's ``:color[…]``, ``$math$`` and ``:emoji:`` extensions)
gives meaning to, removes control characters and redacts secrets, so the text shows verbatim.
"""

from __future__ import annotations

import re

from tokendesk.textsafety import safe_message

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&\"'=])")
# GitHub-flavoured Markdown turns a bare "http://…" or "www.…" into a link even when its
# punctuation is escaped (it rewrites text after parsing); a word joiner breaks the pattern.
_BARE_LINK = re.compile(r"(?i)(https?|ftp|mailto|javascript|data)(:)|(www)(\.)")
_WORD_JOINER = "\u2060"


def plain(value: object, limit: int = 500) -> str:
    """``value`` as inert text inside a Markdown string (never a link, image, HTML or math)."""
    text = safe_message("" if value is None else str(value), limit=limit)
    text = text.replace("\n", " ")
    text = _BARE_LINK.sub(
        lambda m: (m.group(1) or m.group(3)) + _WORD_JOINER + (m.group(2) or m.group(4)), text
    )
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
