"""Keyboard accelerators in UI strings: the marker goes onto the translated word.

Menus and buttons mark the letter of a keyboard shortcut: ``&Datei`` (Qt, Windows), ``_Datei``
(GTK), ``~Datei`` (LibreOffice). Read as text, the marker splits the word for the model
("Spei&chern" is neither "Speichern" nor two words), so ``find`` takes it out first; after the
translation, ``place`` puts it before the first letter of the English word aligned to the marked
German word (the translation's first word when nothing is aligned to it): "&Datei speichern" ->
"Save &file"; "Spei&chern" -> "&Save".

A marker counts only where it is unambiguous: exactly one of its kind in the text, right before a
letter and after a letter or the start or a space; for ``&`` not an HTML entity (``&amp;``), and
not between spaces ("A & B"), and never inside a protected span (``file_name`` is an identifier,
``&amp;`` an entity: ``pipeline.spans``). For ``_`` the word without the marker must also be a
German word the model's lexicon knows ("Ö_ffnen" -> "Öffnen"); texts with no lexicon (an old
checkpoint) keep their ``_`` as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from model.inference.alignment import AlignedText

from .rules.verbatim import find_spans

MARKERS = "&_~"
_ENTITY = re.compile(r"&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Accelerator:
    marker: str
    word: tuple[int, int]   # the marked word's span in the text without the marker


def find(text: str, knows: Callable[[str], bool] | None) -> tuple[str, Accelerator | None]:
    """``text`` without its accelerator marker, and where it was; (text, None) when it has none.
    A marker inside a protected span (``file_name``, ``&amp;``, a path) is none."""
    protected = [(span.start, span.end) for span in find_spans(text)] if any(m in text for m in MARKERS) else []
    for marker in MARKERS:
        found = [i for i, ch in enumerate(text) if ch == marker]
        if len(found) != 1:
            continue
        i = found[0]
        if any(start <= i < end for start, end in protected):
            continue
        after = text[i + 1:i + 2]
        before = text[i - 1:i] if i else ""
        if not after or not (after.isalpha()) or (before and not (before.isalpha() or before.isspace())):
            continue
        if marker == "&" and _ENTITY.match(text, i):
            continue
        stripped = text[:i] + text[i + 1:]
        word = _word_at(stripped, i)
        if marker == "_" and (knows is None or not knows(stripped[word[0]:word[1]])):
            continue
        return stripped, Accelerator(marker, word)
    return text, None


def _word_at(text: str, index: int) -> tuple[int, int]:
    for match in _WORD.finditer(text):
        if match.start() <= index < match.end():
            return match.span()
    return index, index + 1


def place(aligned: AlignedText, accelerator: Accelerator) -> str:
    """The translation with the marker before the first letter of the target word aligned to the
    marked source word (the first aligned one; else the translation's first word)."""
    target = aligned.target
    sources = [k for k, (s, e) in enumerate(aligned.source_words)
               if s < accelerator.word[1] and accelerator.word[0] < e]
    targets = sorted(t for t, s in aligned.links if s in sources)
    spans = [aligned.target_words[t] for t in targets] or [m.span() for m in _WORD.finditer(target)][:1]
    for start, end in spans:
        letter = next((j for j in range(start, end) if target[j].isalpha()), None)
        if letter is not None:
            return target[:letter] + accelerator.marker + target[letter:]
    return target


def translate_marked(texts: list[str], translate: Callable[[list[str]], list[str]],
                     translate_aligned: Callable[[list[str]], list[AlignedText]],
                     knows: Callable[[str], bool] | None) -> list[str]:
    """``translate(texts)``; texts with an accelerator are translated without it, aligned, and
    get it back on the aligned word."""
    found = [find(text, knows) for text in texts]
    marked = [i for i, (_, accelerator) in enumerate(found) if accelerator is not None]
    plain = [i for i, (_, accelerator) in enumerate(found) if accelerator is None]
    out: list[str] = [""] * len(texts)
    for i, text in zip(plain, translate([texts[i] for i in plain]) if plain else []):
        out[i] = text
    for i, aligned in zip(marked, translate_aligned([found[i][0] for i in marked]) if marked else []):
        out[i] = place(aligned, found[i][1])
    return out
