"""Training-pair augmentation that teaches the model what the inference pipeline relies on.

- Placeholders: spans that the pipeline masks at inference (numbers, URLs, emoji, ...) are masked
  the same way in training pairs where they occur on both sides, names that both sides share are
  sometimes masked too, and a few pairs get a synthetic placeholder, so the model learns to copy
  ``⦅N1⦆``/``⦅X1⦆`` to the right place (``pipeline.spans.mask_pair``).
- Casing: a small share of pairs is upper-cased or title-cased on both sides
  (``pipeline.casing.augment_case``), so ALL-CAPS input is not noise to the vocabulary or the model.
- Long inputs: for a share of pairs (``concat_share``), 2 to 5 consecutive sentence pairs of the
  same corpus, starting there, are joined into one (German with a space, English likewise;
  ``concatenate_pairs``). Tatoeba's and Ding's sentences are short, and a model that has seen
  none of 40 words stops early or repeats itself on an e-mail's paragraph.

The augmentation is static and seeded: the same corpus, options and seed always give the same
pairs, so ``train.py --resume`` rebuilds exactly the data it stopped on.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from .casing import augment_case
from .numbers import COUNTING
from .rules.verbatim import find_spans
from .spans import NUMBER_SLOTS, PLACEHOLDER_RE, SLOTS, Span, placeholder, replacement

Pair = tuple[str, str]


@dataclass(frozen=True)
class Augmentation:
    placeholders: bool = True     # mask shared spans with placeholders (and reserve the symbols)
    placeholder_names: float = 0.3      # share of pairs whose shared names become placeholders too
    placeholder_synthetic: float = 0.05  # share of pairs that get a synthetic placeholder at start or end
    number_words: float = 0.5           # share of pairs whose shared number words become N placeholders
    upper_share: float = 0.03           # share of pairs upper-cased on both sides
    title_share: float = 0.01           # share of pairs title-cased on both sides
    concat_share: float = 0.0           # share of pairs that start a synthetic run of 2-5 consecutive pairs

    def __post_init__(self) -> None:
        for name in ("placeholder_names", "placeholder_synthetic", "number_words", "upper_share", "title_share",
                     "concat_share"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        if self.upper_share + self.title_share > 1.0:
            raise ValueError(f"upper_share + title_share must be <= 1, got {self.upper_share + self.title_share!r}")

    def to_dict(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------------ placeholders

_NAME = re.compile(r"\b[^\W\d_]{2,}\b")
_FINAL_PUNCT = re.compile(r"[.!?…]+[\"'“”»«’)]*\s*$")
# A group: (family, de positions, en positions); the German order decides the numbering.
_Group = tuple[str, list[tuple[int, int]], list[tuple[int, int]]]


def _span_groups(de_spans: list[Span], en_spans: list[Span]) -> list[_Group]:
    """German spans whose text (or English number notation) occurs equally often in the English."""
    de_by_text: dict[tuple[str, str], list[Span]] = {}
    en_by_text: dict[str, list[Span]] = {}
    for span in de_spans:
        de_by_text.setdefault((span.family, span.text), []).append(span)
    for span in en_spans:
        en_by_text.setdefault(span.text, []).append(span)
    groups = []
    for (family, text), spans in de_by_text.items():
        for key in dict.fromkeys((replacement(spans[0]), text)):
            match = en_by_text.get(key)
            if match and len(match) == len(spans):
                groups.append((family, [(s.start, s.end) for s in spans], [(s.start, s.end) for s in match]))
                del en_by_text[key]  # each English span corresponds to one German group only
                break
    return groups


def _name_groups(de: str, en: str, de_spans: list[Span], en_spans: list[Span]) -> list[_Group]:
    """Capitalized words that occur equally often on both sides, outside protected spans."""
    def words(text: str, spans: list[Span]) -> dict[str, list[tuple[int, int]]]:
        found: dict[str, list[tuple[int, int]]] = {}
        for match in _NAME.finditer(text):
            if match[0][0].isupper() and not any(s.start < match.end() and match.start() < s.end
                                                 for s in spans):
                found.setdefault(match[0], []).append(match.span())
        return found

    en_words = words(en, en_spans)
    return [("X", places, en_words[word]) for word, places in words(de, de_spans).items()
            if len(en_words.get(word, ())) == len(places)]


def _insertion(text: str, where: int) -> tuple[int, str]:
    """Where a synthetic placeholder goes (0 start, 1 end, 2 before final punctuation) and its frame."""
    if where == 0:
        return 0, "{}: "
    end = len(text.rstrip())
    if where == 2 and (punct := _FINAL_PUNCT.search(text)):
        end = punct.start()
    return end, " {}"


def _render(text: str, edits: list[tuple[int, int, str]]) -> str:
    pieces, position = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        pieces += [text[position:start], new]
        position = end
    return "".join(pieces) + text[position:]


def mask_pair(de: str, en: str, rng: random.Random, *, p_names: float = 0.3,
              p_synthetic: float = 0.05) -> tuple[str, str]:
    """A training pair with corresponding spans replaced by the same placeholders on both sides.

    Spans found on both sides (equal text, or a German number equal to the English one in English
    notation) become placeholders numbered in German order; with probability ``p_names``
    capitalized words occurring on both sides too (copying practice in noun positions); with
    probability ``p_synthetic`` one extra X placeholder at the start ("⦅X1⦆: ") or end, like an
    appended emoji or URL. Groups beyond the slots stay unmasked.
    """
    for name, p in (("p_names", p_names), ("p_synthetic", p_synthetic)):
        if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    use_names = rng.random() < p_names
    where = rng.randrange(3) if rng.random() < p_synthetic else None
    de_spans = find_spans(de)
    en_spans = find_spans(en) if de_spans or use_names else []
    groups = _span_groups(de_spans, en_spans) if en_spans else []
    if use_names:
        groups += _name_groups(de, en, de_spans, en_spans)
    if not groups and where is None:
        return de, en
    # Numbering follows the German order; a synthetic start placeholder comes first.
    order: list[tuple[int, str, _Group | None]] = [(g[1][0][0], g[0], g) for g in groups]
    if where is not None:
        order.append((-1 if where == 0 else len(de) + 1, "X", None))
    counts = dict.fromkeys(SLOTS, 0)
    de_edits: list[tuple[int, int, str]] = []
    en_edits: list[tuple[int, int, str]] = []
    for _, family, group in sorted(order, key=lambda item: item[0]):
        if counts[family] == SLOTS[family]:
            continue
        counts[family] += 1
        symbol = placeholder(family, counts[family])
        if group is None:
            for text, edits in ((de, de_edits), (en, en_edits)):
                position, frame = _insertion(text, where)
                edits.append((position, position, frame.format(symbol)))
        else:
            de_edits += [(start, end, symbol) for start, end in group[1]]
            en_edits += [(start, end, symbol) for start, end in group[2]]
    return _render(de, de_edits), _render(en, en_edits)


# Number words that translate one to one. Digits are rare in Tatoeba (under 1% of pairs), so
# without these the model would see number placeholders too seldom to learn where they go;
# "ein"/"one" is left out (it is mostly the article "a").
NUMBER_WORDS = COUNTING
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def mask_number_words(de: str, en: str) -> tuple[str, str]:
    """Number words that occur once on each side ("zwei" / "two") become the next free N placeholder."""
    used = {int(m.group()[2:-1]) for m in PLACEHOLDER_RE.finditer(de) if m.group()[1] == "N"}
    words = [m.group().lower() for m in _NUMBER_WORD.finditer(de)]
    if len(words) != len(set(words)):  # "zwei plus zwei": which "two" is which is not clear
        return de, en
    edits = []  # (de match, en match, symbol), numbered in German order as the pipeline does
    for match in _NUMBER_WORD.finditer(de):
        found = list(re.finditer(rf"\b{NUMBER_WORDS[match.group().lower()]}\b", en, re.IGNORECASE))
        free = next((k for k in range(1, NUMBER_SLOTS + 1) if k not in used), None)
        if len(found) != 1 or free is None:
            continue
        used.add(free)
        edits.append((match, found[0], placeholder("N", free)))
    for match, _, symbol in sorted(edits, key=lambda e: -e[0].start()):
        de = de[:match.start()] + symbol + de[match.end():]
    for _, match, symbol in sorted(edits, key=lambda e: -e[1].start()):
        en = en[:match.start()] + symbol + en[match.end():]
    return de, en


def augment_pairs(pairs: Sequence[Pair], augmentation: Augmentation, seed: int) -> list[Pair]:
    """The pairs, each followed by its augmented form where augmentation changed it.

    Augmented pairs are added, not substituted: the model still sees every sentence as written
    (and names and numbers in their own words), which matters most for small corpora.
    Deterministic for the same ``seed``."""
    rng = random.Random(f"augment-{seed}")
    out: list[Pair] = []
    for pair in pairs:
        de, en = pair
        if augmentation.placeholders:
            de, en = mask_pair(de, en, rng, p_names=augmentation.placeholder_names,
                               p_synthetic=augmentation.placeholder_synthetic)
            if rng.random() < augmentation.number_words:
                de, en = mask_number_words(de, en)
        de, en = augment_case(de, en, rng, p_upper=augmentation.upper_share, p_title=augmentation.title_share)
        out.append(pair)
        if (de, en) != pair:
            out.append((de, en))
    # A random stream of its own: the pairs above stay exactly those of a run without concatenation.
    return out + concatenate_pairs(pairs, augmentation.concat_share, random.Random(f"concat-{seed}"))


CONCAT_MIN, CONCAT_MAX = 2, 5
CONCAT_MAX_CHARS = 500   # German characters; longer runs would mostly exceed train.py's --max-len of 128 pieces


def _ends_sentence(text: str) -> bool:
    return _FINAL_PUNCT.search(text) is not None


def concatenate_pairs(pairs: Sequence[Pair], share: float, rng: random.Random) -> list[Pair]:
    """Synthetic long pairs: each pair starts, with probability ``share``, a run of 2 to 5
    consecutive pairs (as many as fit in ``CONCAT_MAX_CHARS``), joined with a space on each side.

    Only sentences join: every pair of a run must end in . ! ? or … on both sides, so that word
    pairs ("Haus" / "house") and UI labels ("Open File") never become a pseudo-sentence, and the
    joined text reads as a paragraph would. The originals stay; these are added beside them."""
    if share <= 0:
        return []
    out: list[Pair] = []
    for start in range(len(pairs) - 1):
        if rng.random() >= share:
            continue
        want = rng.randint(CONCAT_MIN, CONCAT_MAX)
        run: list[Pair] = []
        for de, en in pairs[start:start + want]:
            if not (_ends_sentence(de) and _ends_sentence(en)):
                break
            if run and sum(len(d) + 1 for d, _ in run) + len(de) > CONCAT_MAX_CHARS:
                break
            run.append((de, en))
        if len(run) >= CONCAT_MIN:
            out.append((" ".join(de for de, _ in run), " ".join(en for _, en in run)))
    return out
