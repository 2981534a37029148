"""Texts in, translations out, as the service's ``/translate`` and the documents ask for them.

``translate_texts(pipeline, texts, html=False)`` is one translation per text: plain texts through
``Pipeline.translate`` (ICU plural/select messages by their parts, ``pipeline.icu``; a keyboard
accelerator onto the translated word, ``pipeline.accelerators``), HTML fragments through
``pipeline.markup`` with the pipeline's alignment (NFC first: the word spans index the NFC form)
and, for a German source, its dictionary, which checks where the tags go.
A request's text comes here straight from the service; a file's texts come the same way, called
by its ``pipeline.documents`` document. Whitespace around a plain text comes back as it was sent,
as it does inside it ("\n\nJa" -> "\n\nYes": the leading lines were lost).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from .accelerators import translate_marked
from .icu import translate_messages
from .language_pair import DE_EN, LanguagePair
from .markup import translate_html


def translate_texts(pipeline: Any, texts: Sequence[str], html: bool = False,
                    languages: LanguagePair = DE_EN) -> list[str]:
    """One translation per text of ``texts`` through ``pipeline`` (a ``Pipeline`` or the
    ``GlossaryPipeline`` of ``Pipeline.with_glossary``); with ``html`` each text is an HTML
    fragment whose inline tags follow their words, and whose ``lang`` attributes that name
    ``languages.source`` (the pipeline's model's) come to name ``languages.target``."""
    if html:
        return translate_html([unicodedata.normalize("NFC", t) for t in texts], pipeline.translate_aligned, languages,
                              _dictionary(pipeline, languages))
    lexicon = pipeline.translator.lexicon
    knows = lexicon.knows if lexicon is not None else None
    cores = [text.strip() for text in texts]
    done = translate_messages(cores, lambda units: translate_marked(
        units, pipeline.translate, pipeline.translate_aligned, knows))
    return [_around(text, core, output) for text, core, output in zip(texts, cores, done)]


def _dictionary(pipeline: Any, languages: LanguagePair) -> Any:
    """The pipeline's dictionary (a ``GlossaryPipeline``'s is its pipeline's), where it reads the
    source: the Ding index reads German (``pipeline.coverage``)."""
    own = getattr(pipeline, "pipeline", pipeline)
    return getattr(own, "dictionary", None) if languages.source == "de" else None


def _around(text: str, core: str, output: str) -> str:
    """``output`` (the translation of ``core``, ``text`` stripped) in ``text``'s whitespace; a
    blank text translates to "" (LibreTranslate's answer)."""
    if not core:
        return ""
    start = text.index(core)
    return text[:start] + output.strip() + text[start + len(core):]
