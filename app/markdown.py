"""MODEL_CARD.md as safe HTML, rendered by markdown-it-py (CommonMark plus GFM tables).

The card is repository content, but the page must stay safe even if it were not: raw HTML is
escaped rather than passed through, and links and images keep only http(s), mailto and relative
URLs (anything else stays visible as text). No style or script attribute reaches the page, so the
renderer needs nothing from the Content-Security-Policy.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markupsafe import Markup

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
# What browsers ignore before a URL; stripped so that " javascript:" cannot pass as relative.
_LEADING_IGNORED = "".join(map(chr, range(0x21)))
_TEXT_ALIGN = re.compile(r"text-align:(left|center|right)")


def _allowed_url(url: str) -> bool:
    """A whitelist rather than markdown-it's default blacklist (which lets data: images through).

    A URL is relative when no ':' comes before its first '/', '?' or '#'; otherwise a browser
    would read what precedes the ':' as a scheme, so that must be one of ``ALLOWED_SCHEMES``.
    Percent-encoded tricks ("java%09script:") fail the same test, as '%' is no scheme character.
    """
    url = url.lstrip(_LEADING_IGNORED)
    head = re.split(r"[/?#]", url, maxsplit=1)[0]
    if ":" not in head:
        return True
    return head.split(":", 1)[0].lower() in ALLOWED_SCHEMES


def _make_parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.enable("table")
    parser.validateLink = _allowed_url
    return parser


_PARSER = _make_parser()


def render(source: str) -> Markup:
    """The card's HTML, headings one level down (the page already has its <h1>; at most <h6>)."""
    env: dict = {}
    tokens = _PARSER.parse(source, env)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
        elif token.type in ("th_open", "td_open") and token.attrGet("style"):
            # Column alignment becomes a class: an inline style would need 'unsafe-inline'.
            align = _TEXT_ALIGN.fullmatch(str(token.attrGet("style")))
            token.attrs.pop("style")
            if align:
                token.attrSet("class", f"align-{align.group(1)}")
    return Markup(_PARSER.renderer.render(tokens, _PARSER.options, env))
