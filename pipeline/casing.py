"""Casing styles: ALL-CAPS, Title Case and all-lower-case input, translated as well as normal text,
and returned in the style it came in (lower case comes back as English writes it).

Signs, warnings and headlines are often written ``NOTAUSGANG FREIHALTEN`` or ``Neue Regeln Für Den
Bahnverkehr``. A vocabulary learned from ordinary text splits such words into single letters, and a
model that never saw them produces noise. Two remedies exist (and are measured in MODEL_CARD.md):

- training augmentation: a small share of training pairs is upper-cased or title-cased on both
  sides (``augment_case``, used by ``train.py``), so the vocabulary and the model know those forms;
- at inference, ``style`` recognizes the input's style, ``truecase`` can rewrite it in the casing
  the model's vocabulary knows (for a model trained without augmentation), and ``apply_style``
  puts the output into the input's style, so the user gets ``EMERGENCY EXIT`` back for
  ``NOTAUSGANG``, whatever the model's casing.

Chat and e-mail are often written all in lower case (``hast du morgen zeit``), and a letter's body
starts in lower case after the salutation's comma (``Sehr geehrter Herr Becker,`` / ``leider ...``).
The model, trained on sentences that start with a capital and capitalize their nouns, reads such
text badly ("leider funktioniert die Heizung ..." lost its verb); ``truecase`` reads all-lower-case
text as it reads ALL CAPS, and ``capital_start`` gives a sentence's lower-case first word its capital.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

STYLES = ("normal", "upper", "title", "lower")

# German words that are lower case inside a sentence: when several of them are capitalized the
# text is in headline style, not a run of nouns ("Die Kinder Berlins" is normal German).
_GERMAN_LOWER = frozenset("""
    und oder aber denn sondern doch der die das den dem des ein eine einen einem einer eines für mit
    von vom zu zum zur in im an am auf aus bei nach über unter vor hinter neben zwischen durch gegen
    ohne um bis seit ist sind war waren wird werden hat haben nicht kein keine auch noch nur schon
    sehr wie als wenn dass ob so es er sie wir ihr ich du man sich mehr neue neuer neues neuen
""".split())

# English words kept lower case inside a title (Chicago style, short function words).
_ENGLISH_SMALL = frozenset("""
    a an the and or but nor for so yet as at by in of off on per to up via with from into onto
    over than vs
""".split())

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_PLACEHOLDER = re.compile(r"⦅[NX]\d+⦆")


def style(text: str) -> str:
    """'upper' for ALL CAPS (at least three letters, none lower case), 'title' for headline
    style (every word of three or more words capitalized, German function words among them),
    'lower' for all lower case (three or more words, no capital at all), else 'normal'.
    Placeholders do not count."""
    text = _PLACEHOLDER.sub(" ", text)
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and not any(c.islower() for c in letters) and any(c.isupper() for c in letters):
        return "upper"
    words = _WORD.findall(text)
    if len(words) >= 3 and all(w[0].isupper() for w in words):
        if any(w.lower() in _GERMAN_LOWER for w in words[1:]):
            return "title"
    if len(words) >= 3 and not any(c.isupper() for c in letters):
        return "lower"
    return "normal"


_FIRST_WORD = re.compile(r"[\s\"'„“‚‘»«(\[¡¿]*([^\W\d_]+)")


def capital_start(text: str) -> str:
    """``text``, a sentence, with its first word capitalized where that word is all lower case
    ("leider funktioniert ..." -> "Leider funktioniert ..."); a word with a capital inside
    ("iPhone", "eBay") and a text that starts with a number or a placeholder stay as they are.
    The length never changes, so spans of the text still hold."""
    match = _FIRST_WORD.match(text)
    if match is None or not match.group(1).islower():
        return text
    head = match.group(1)[0].upper()
    if len(head) != 1 or match.end(1) < len(text) and text[match.end(1)] in "'’-":  # "d'Artagnan", "e-Mail"
        return text
    return text[:match.start(1)] + head + text[match.start(1) + 1:]


def truecase(text: str, pieces: Callable[[str], tuple[int, float]], *,
             known: Callable[[str], bool] | None = None, sharp_s: bool = False, capital_first: bool = True) -> str:
    """ALL-CAPS or headline text in the casing the model knows, learned from its vocabulary: each
    word (but the first, which starts upper case where ``capital_first``, else is chosen as the
    others are) becomes lower case or Capitalized, whichever the
    SentencePiece model encodes in fewer pieces, then with the higher log-probability, also when
    both forms take several pieces (upper-cased Tatoeba dev: 91.6% of capitalized words restored,
    against 89.0% when such ties went to Capitalized as compound nouns; ``tests/pipeline``).
    ``pieces(word)`` -> (number of pieces, log-probability). Placeholders keep their form.

    ``sharp_s`` (for ALL CAPS, where ß is written SS): each form may also take ß for some of its
    ``ss`` (``respellings``), the spelling that ``known`` (the model's lexicon, when it has one)
    knows in lower case or Capitalized, then the one in fewer pieces, then the likelier; a tie
    keeps ``ss``. ``STRASSE`` becomes ``Straße`` and ``DASS`` stays ``dass``.
    ``sharp_s_regions`` maps the result back."""
    def spelled(form: str) -> str:
        if not sharp_s:
            return form
        def key(v: str) -> tuple[bool, int, float]:
            n, p = pieces(v)
            return bool(known) and (known(v.lower()) or known(v[:1].upper() + v[1:])), -n, p

        return max(respellings(form), key=key)

    parts = re.split(f"({_PLACEHOLDER.pattern})", text)  # odd indexes: placeholders
    first = True
    for k in range(0, len(parts), 2):
        out, last = [], 0
        for match in _WORD.finditer(parts[k]):
            word = match.group()
            lower, capital = spelled(word.lower()), spelled(word[:1].upper() + word[1:].lower())
            if first and capital_first:
                chosen, first = capital, False
            else:
                (n_lower, p_lower), (n_capital, p_capital) = pieces(lower), pieces(capital)
                if n_lower != n_capital:
                    chosen = lower if n_lower < n_capital else capital
                else:
                    chosen = lower if p_lower >= p_capital else capital
            out += [parts[k][last:match.start()], chosen]
            last = match.end()
        parts[k] = "".join(out) + parts[k][last:]
    return "".join(parts)


_MAX_RESPELLINGS = 4  # ss in one word; 2**4 spellings to score


def respellings(word: str) -> list[str]:
    """``word`` and each spelling with ß for some of its (non-overlapping, not initial) ``ss``,
    as written first; a word with more than four ``ss`` only as written."""
    cuts = [m.start() for m in re.finditer("ss", word) if m.start() > 0]  # no word starts with ß
    if not cuts or len(cuts) > _MAX_RESPELLINGS:
        return [word]
    out = []
    for choice in range(1 << len(cuts)):
        pieces, last = [], 0
        for bit, cut in enumerate(cuts):
            if choice >> bit & 1:
                pieces += [word[last:cut], "ß"]
                last = cut + 2
        out.append("".join(pieces) + word[last:])
    return out


def sharp_s_regions(cased: str, text: str) -> tuple[tuple[int, int, int, int], ...] | None:
    """Where ``truecase`` wrote ß for SS: ``(cased_start, cased_end, text_start, text_end)`` per
    ß, in order; None when ``cased`` is not ``text`` re-cased and so respelled (a character
    whose lower case is longer, such as İ)."""
    regions, i, j = [], 0, 0
    while i < len(cased) and j < len(text):
        if cased[i].lower() == text[j].lower():
            i, j = i + 1, j + 1
        elif cased[i] == "ß" and text[j:j + 2].lower() == "ss":
            regions.append((i, i + 1, j, j + 2))
            i, j = i + 1, j + 2
        else:
            return None
    return tuple(regions) if i == len(cased) and j == len(text) else None


def title_case(text: str, small: frozenset[str] = _ENGLISH_SMALL) -> str:
    """Capitalize every word except short function words that are not first or last."""
    words = list(_WORD.finditer(text))
    out, last = [], 0
    for k, match in enumerate(words):
        word = match.group()
        keep_small = word.lower() in small and 0 < k < len(words) - 1
        out.append(text[last:match.start()])
        out.append(word.lower() if keep_small else word[0].upper() + word[1:])
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def apply_style(output: str, text_style: str) -> str:
    """The model's output in the input's style. Placeholders are left as they are."""
    if text_style == "upper":
        return output.upper()  # placeholders (⦅N1⦆) are upper case already
    if text_style == "title":
        return title_case(output)
    if text_style in ("normal", "lower"):  # English capitalizes, whatever a chat's German did
        return output
    raise ValueError(f"style must be one of {', '.join(STYLES)}, got {text_style!r}")


def augment_case(de: str, en: str, rng: random.Random, *, p_upper: float, p_title: float) -> tuple[str, str]:
    """A training pair, upper-cased (probability ``p_upper``) or title-cased (``p_title``) on
    both sides, or unchanged. Placeholders keep their form (upper() leaves them intact)."""
    draw = rng.random()
    if draw < p_upper:
        return de.upper(), en.upper()
    if draw < p_upper + p_title:
        return title_case(de, frozenset()), title_case(en)
    return de, en
