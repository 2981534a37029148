"""Language identification: what a text is written in, and which sentences are clearly not in the
language a model translates from.

The service translates German into English, and English into German where it has that model.
LibreTranslate's ``/detect`` and ``source=auto`` need two things from here:

* ``detect(text)``: candidates among the languages we serve (German and English), best first, with
  a confidence from 0 to 100 as LibreTranslate reports it; a text clearly in another language
  (``other_language``) has that one first, so that a client learns why it cannot be translated.
* ``is_clearly_not_german(sentence)``: whether a sentence should be carried over unchanged instead
  of being "translated" from German (an English sentence inside a German paragraph, above all).
  ``split_languages`` cuts a text into stretches to translate and stretches to keep;
  ``is_clearly_not(sentence, "en")`` is the same rule for an English source, mirrored (German
  instead of English; not measured as the German one was).

The identifier is py3langid (langid.py's Naive Bayes model over byte n-grams, 140 languages; the
model ships in the wheel, nothing is downloaded). Its probabilities are softmax scores at a
temperature of sqrt(bytes), so a short text gets a modest confidence rather than a confident guess.
Chosen over lingua-language-detector on our own measurements (2-core CPU, 21,074 German/English
pairs: a 20,000-pair sample of Tatoeba, Multi30k val and general-dev): German vs English accuracy
99.95% for both languages (lingua, German and English models only: 99.8%), +76 MiB resident after
loading (lingua with the same two languages: +73 MiB; with six languages: +195 MiB; with all:
+1.2 GiB), 0.05-0.1 ms per sentence for either. Loaded before gunicorn forks, it adds 65 MiB to the
proportional memory of the master and two workers together (384 against 319 MiB, release model).

Carrying a sentence over is the costly mistake (German left untranslated), so the rule is
conservative and was set on that corpus: at least ``MIN_WORDS`` words, and either English with
probability >= ``ENGLISH_AT_LEAST`` against German, or another language on top of all 140 with
>= ``OTHER_AT_LEAST`` while German has <= ``GERMAN_AT_MOST``. None of the 21,074 German sentences
was carried over (the most English-looking one, "Tom fing stark an.", scores 0.70 for English),
while 93.6% of the English ones were. Names, numbers, single words and short phrases are always
translated. URLs, e-mail addresses, @handles, emoji and the like are left out of the evidence:
they say nothing about the language of the sentence around them.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from py3langid.langid import MODEL_FILE, LanguageIdentifier, visit_counts

from .segment import segment
from .rules.verbatim import find_spans

SERVED = ("de", "en")     # what /languages lists: the languages translated from and into
MIN_WORDS = 3
ENGLISH_AT_LEAST = 0.99
OTHER_AT_LEAST = 0.8
GERMAN_AT_MOST = 0.01
# A text in a language we do not serve (``other_language``): that language on top of all 140 with
# at least this probability and this many times that of German and of English. Of 11,129 German
# dev and test sources (Tatoeba, chat, UI, help, newstest2019) none of three or more words is
# flagged; "Je suis fatigué." (fr 0.72) and "Ciao, come stai? Tutto bene?" (it 0.62) are.
ANOTHER_AT_LEAST = 0.6
ANOTHER_MARGIN = 10

# Words of letters ("don't" and "E-Mail" are one word each); digits are not evidence of a language.
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


class Identifier:
    """py3langid's model, scored as its ``LanguageIdentifier.rank`` scores with ``norm_probs=True``,
    over all its languages (``rank``) and over ``SERVED`` alone (``rank_served``, as after
    ``set_languages(SERVED)``).

    Why not the library's class: it keeps the automaton's 104,583 row offsets and outputs as lists
    of Python ints, one pair of lists per identifier (we need two), and every lookup writes to the
    reference counts of the ints it reads, so each forked worker copies the pages that hold them.
    Here they are ``array``s, plain bytes that reading leaves shared, held once for both rankings
    (docs/journal/serving-load.md, "Two models": the language identifier)."""

    def __init__(self, model: LanguageIdentifier):
        self._nextmove = model.tk_nextmove                               # 256 next states per row
        self._rowbase = array("I", (row << 8 for row in model.tk_row))   # a state's row, times 256
        self._output = array("i", model.tk_output)                       # a state's feature, or -1
        self._table = model.nb_ptc                                       # (features, classes) float16
        self._prior = model.nb_pc                                        # (classes,) float32
        classes = list(model.nb_classes)
        # A label may own two columns (a language in two scripts): its probability is their sum.
        self._labels = list(dict.fromkeys(classes))
        self._first = np.array([classes.index(label) for label in self._labels])
        self._seconds = [(self._labels.index(code), i) for i, code in enumerate(classes) if i not in self._first]
        # SERVED's own columns, as ``set_languages`` keeps them: the product over two columns is
        # then the library's to the last bit, which a slice of the product over all is not.
        served = [classes.index(code) for code in SERVED]
        self._served_table = np.ascontiguousarray(self._table[:, served])
        self._served_prior = self._prior[served]

    def _evidence(self, text: str) -> tuple[np.ndarray, np.ndarray, float] | None:
        """(the features the text's bytes hit, ``(n,)``; log(1 + how often), ``(n,)`` float32;
        the softmax temperature's reciprocal, 1 / sqrt(UTF-8 bytes)), with the library's
        normalization of the text; None when it hits none (every language then equally likely)."""
        if text.isupper():
            text = text.lower()
        data = unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")
        visits: Counter | None = visit_counts(self._nextmove, self._rowbase, self._output, data)
        if not visits:
            return None
        features = np.fromiter(visits.keys(), dtype=np.intp, count=len(visits))
        counts = np.fromiter(visits.values(), dtype=np.float32, count=len(visits))
        return features, np.log1p(counts), 1.0 / math.sqrt(len(data))

    @staticmethod
    def _probabilities(evidence: tuple[np.ndarray, np.ndarray, float] | None, table: np.ndarray,
                       prior: np.ndarray) -> np.ndarray:
        """Softmax at the temperature of the Naive Bayes log-posteriors, ``(classes,)`` float32."""
        if evidence is None:
            return np.full(len(prior), 1.0 / len(prior), dtype=np.float32)
        features, weights, scale = evidence
        scores = (weights @ table[features] + prior) * scale
        np.exp(scores - scores.max(), out=scores)
        return scores / scores.sum()

    def rank(self, text: str) -> list[tuple[str, float]]:
        """Every language with its probability, best first."""
        p = self._probabilities(self._evidence(text), self._table, self._prior)
        found = p[self._first]
        for label, column in self._seconds:
            found[label] += p[column]
        return sorted(zip(self._labels, found.tolist()), key=lambda pair: pair[1], reverse=True)

    def rank_served(self, text: str) -> list[tuple[str, float]]:
        """``SERVED`` with their probabilities among themselves, best first."""
        p = self._probabilities(self._evidence(text), self._served_table, self._served_prior)
        return sorted(zip(SERVED, p.tolist()), key=lambda pair: pair[1], reverse=True)


_lock = threading.Lock()
_identifier: Identifier | None = None


def load() -> Identifier:
    """The identifier, loaded once per process.

    Call it at start-up: gunicorn preloads the app, so the model is loaded in the master and its
    arrays are shared copy-on-write by the workers instead of being loaded by each of them."""
    global _identifier
    with _lock:
        if _identifier is None:
            _identifier = Identifier(LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True))
        return _identifier


def _evidence(text: str) -> str:
    """``text`` without its protected spans (URLs, e-mails, handles, emoji, numbers, ...)."""
    spans = find_spans(text)
    if not spans:
        return text
    parts, position = [], 0
    for span in spans:
        parts.append(text[position:span.start])
        position = span.end
    parts.append(text[position:])
    return " ".join(parts)


def _ranked(ranking: list[tuple[str, float]]) -> list[tuple[str, float]]:
    # German first on a tie ("Tom", "OK"): it is the language we translate from.
    return sorted(ranking, key=lambda pair: (-pair[1], pair[0] != "de"))


def detect(text: str) -> list[tuple[str, float]]:
    """``[("de", 97.4), ("en", 2.6)]``: the served languages, best first, confidence 0-100 (one
    decimal); ``[]`` when the text has no word to go by (blank, digits, emoji, a URL). A text
    clearly in another language (``other_language``) has that language first, then the served
    ones with their (small) confidences among all 140: ``[("fr", 99.8), ("en", 0.1), ("de", 0.0)]``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")
    evidence = _evidence(text)
    if not _WORD.search(evidence):
        return []
    ranked = _ranked_all(evidence)
    other = _another(ranked)
    if other is not None:
        every = dict(ranked)
        served = sorted(((code, round(100 * every[code], 1)) for code in SERVED), key=lambda c: (-c[1], c[0] != "de"))
        return [other, *served]
    return [(language, round(100 * p, 1)) for language, p in _ranked(load().rank_served(evidence))]


def other_language(text: str) -> tuple[str, float] | None:
    """(language code, confidence 0-100) when ``text`` is clearly in a language that is neither
    German nor English (``ANOTHER_AT_LEAST``, ``ANOTHER_MARGIN``, at least ``MIN_WORDS`` words),
    else None: LibreTranslate's ``source=auto`` then has nothing it could translate."""
    return _another(_ranked_all(_evidence(text)))


def _ranked_all(evidence: str) -> list[tuple[str, float]] | None:
    """All 140 languages, best first, for evidence of at least ``MIN_WORDS`` words; else None."""
    return _ranked(load().rank(evidence)) if len(_WORD.findall(evidence)) >= MIN_WORDS else None


def _another(ranked: list[tuple[str, float]] | None) -> tuple[str, float] | None:
    """The top of ``ranked`` (``_ranked_all``) when it is a language we do not serve, by the rule."""
    if ranked is None:
        return None
    top, probability = ranked[0]
    served = max(p for code, p in ranked if code in SERVED)
    if top in SERVED or probability < ANOTHER_AT_LEAST or probability < ANOTHER_MARGIN * served:
        return None
    return top, round(100 * probability, 1)


def is_clearly_not_german(sentence: str) -> bool:
    """Whether ``sentence`` is so clearly in another language that translating it from German
    would only damage it (see the module docstring for the rule and its measurement)."""
    return is_clearly_not(sentence, "de")


def is_clearly_not(sentence: str, source: str) -> bool:
    """Whether ``sentence`` is so clearly not in ``source`` (one of ``SERVED``) that translating it
    from that language would only damage it: the other served language with probability >=
    ``ENGLISH_AT_LEAST`` against it, or another language on top with >= ``OTHER_AT_LEAST`` while
    ``source`` has <= ``GERMAN_AT_MOST`` (the thresholds were set for German)."""
    if source not in SERVED:
        raise ValueError(f"source must be one of {', '.join(SERVED)}, got {source!r}")
    evidence = _evidence(sentence)
    if len(_WORD.findall(evidence)) < MIN_WORDS:
        return False
    identifier = load()
    other = next(code for code in SERVED if code != source)
    if dict(identifier.rank_served(evidence))[other] >= ENGLISH_AT_LEAST:
        return True
    ranked = _ranked(identifier.rank(evidence))
    top, probability = ranked[0]
    return top != source and probability >= OTHER_AT_LEAST and dict(ranked)[source] <= GERMAN_AT_MOST


class Stretch(NamedTuple):
    """``text[start:end]``: one or more whole sentences, all to translate or all carried over."""

    start: int
    end: int
    translated: bool


@dataclass(frozen=True)
class Mixed:
    """A text cut into stretches to translate and stretches to keep as they are, in order.

    The whitespace between two stretches belongs to neither and is kept byte for byte; a text with
    nothing to keep is a single stretch to translate, the whole text, so that it is translated
    exactly as it would be without language detection."""

    text: str
    stretches: tuple[Stretch, ...]

    @property
    def runs(self) -> list[str]:
        """The stretches to translate, in order."""
        return [self.text[s.start:s.end] for s in self.stretches if s.translated]

    def join(self, translations: Sequence[str]) -> str:
        """The text with each stretch to translate replaced by its translation (one per stretch)."""
        if len(translations) != len(self.runs):
            raise ValueError(f"expected {len(self.runs)} translations, got {len(translations)}")
        parts, done, previous = [], iter(translations), None
        for stretch in self.stretches:
            if previous is not None:
                parts.append(self.text[previous:stretch.start])
            parts.append(next(done) if stretch.translated else self.text[stretch.start:stretch.end])
            previous = stretch.end
        return "".join(parts)


def split_languages(text: str, source: str = "de") -> Mixed:
    """``text`` as stretches in ``source`` (or too short to tell) and stretches of sentences that
    are clearly not in it (``is_clearly_not``; sentences as ``segment`` finds them, line by line)."""
    spans = [span for line in segment(text) for span in line]
    keep = [is_clearly_not(text[start:end], source) for start, end in spans]
    if not any(keep):
        return Mixed(text, (Stretch(0, len(text), True),))
    stretches: list[Stretch] = []
    for (start, end), foreign in zip(spans, keep):
        if stretches and stretches[-1].translated != foreign:
            stretches[-1] = stretches[-1]._replace(end=end)  # same kind as the one before: extend it
        else:
            stretches.append(Stretch(start, end, not foreign))
    return Mixed(text, tuple(stretches))
