"""Which of German and English a training sentence is in, to drop wrong-language pairs.

Localization catalogs hold untranslated or half-translated entries ("Build ID:" in a German
catalog); a pair whose German side reads as English, or whose English side reads as German, is
misaligned. py3langid (its model ships in the wheel) decides between the two languages only.
"""

from __future__ import annotations

import functools
import re

MIN_WORDS = 4        # shorter strings ("Build ID", "OK") are not evidence of a language
SURE = 0.99

_WORD = re.compile(r"[^\W\d_]{2,}")


@functools.lru_cache(maxsize=1)
def _identifier():
    # Imported here: train.py must start where only torch's stack is installed (a lent GPU).
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(["de", "en"])
    return identifier


def clearly(language: str, text: str) -> bool:
    """Whether ``text`` has at least ``MIN_WORDS`` words and is ``language`` ("de" or "en") with
    probability >= ``SURE`` against the other one."""
    if len(_WORD.findall(text)) < MIN_WORDS:
        return False
    found, probability = _identifier().classify(text)
    return found == language and probability >= SURE


def wrong_language(de: str, en: str) -> bool:
    """Whether the German side is clearly English or the English side clearly German."""
    return clearly("en", de) or clearly("de", en)
