"""Keyboard keys, written as English names them: "Strg+C" -> "Ctrl+C", "[Entf]" -> "[Del]".

Part of what ``pipeline.rules.verbatim.find_spans`` finds (every caller of it, training pairs'
masking included, sees keys so). The key names are the table ``pipeline/tables/keys.tsv``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import tables
from ..spans import Span, merge

# Keyboard keys that English names otherwise, where a text names a key: in a combination ("Strg+C",
# "Umschalt + F5"), alone in square brackets ("[Entf]"), and "Strg" anywhere. The model carried
# "Strg" over as a name ("Press Strg+C.") or dropped it ("Strg+Umschalt+Pos1" -> "Shift+Pos1").
# LibreOffice's help writes the Mac's key and the PC's together ("BefehlStrg+F": "CommandCtrl+F").
_KEYS = tables.pairs("keys")
_KEY = "|".join(re.escape(k).replace(r"\ ", "[ \t]") for k in sorted(_KEYS, key=len, reverse=True))
_KEY_TOKEN = rf"(?:{_KEY}|Alt(?:Gr)?|Tab|Esc|Fn|F[0-9]{{1,2}}|[A-ZÄÖÜ0-9])(?![\w-])"
_KEY_RE = re.compile(rf"(?<![\w-]){_KEY_TOKEN}(?:[ \t]*\+[ \t]*{_KEY_TOKEN})+|(?<=\[)(?:{_KEY})(?=\])|(?<![\w-])Strg(?![\w-])")
_KEY_NAME = re.compile(rf"(?<![\w-])(?:{_KEY})(?![\w-])")
_NAMED_KEY = re.compile(r"(?<![\w-])(?:[A-Za-zÄÖÜäöü]{2,}[0-9]?|F[0-9]{1,2})(?![\w-])")


def _maybe_keys(text: str) -> bool:
    """What every match of ``_KEY_RE`` holds: most sentences skip it (it took 40% of
    ``find_spans``'s time on a sentence without spans)."""
    return "+" in text or "[" in text or "Strg" in text


def _keys(text: str, taken: Sequence[Span]) -> list[Span]:
    """Key combinations with a named key ("Strg + Alt + Entf", "Alt+F4"; not "A+B") and the keys of
    ``_KEYS`` in brackets or alone (only "Strg"), outside ``taken`` but replacing an identifier or
    code inside them ("Pos1"): one span each, written in English ("Ctrl + Alt + Del"). One span
    for the whole combination: between two placeholders the model dropped the "Alt"."""
    found = []
    for match in _KEY_RE.finditer(text):
        start, end = match.span()
        if "+" in match[0] and not _NAMED_KEY.search(match[0]):
            continue
        overlapping = [s for s in taken if s.start < end and start < s.end]
        if all(s.kind in ("identifier", "code", "number") and start <= s.start and s.end <= end for s in overlapping):
            english = _KEY_NAME.sub(lambda key: _KEYS[" ".join(key[0].split())], match[0])
            found.append(Span(start, end, "phrase", match[0], english))
    return found


def with_keys(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` with the keys of ``text`` (``_keys``) merged in."""
    return merge(spans, _keys(text, spans)) if _maybe_keys(text) else list(spans)
