"""German-aware sentence splitting, and putting translated sentences back into the text's layout.

The model was trained on single sentences, so long input is cut into sentences, all of them are
translated as one batch, and the results are reassembled line by line: line breaks and blank lines
(paragraphs) survive, spaces inside a line are normalized.

A boundary is sentence-final punctuation (. ! ? …), optionally followed by closing quotes or
brackets, then whitespace, then something that can start a sentence (an upper-case letter, a digit
or an opening quote). A period does not end a sentence after
- a known abbreviation ("z.B.", "Dr.", "usw.", "Nr.", "Hauptstr.", ...) or a single letter
  ("A. Merkel", "z. B."),
- a number of up to three digits: German writes ordinals that way ("am 3. Mai", "im 19. Jahrhundert");
decimals ("3.5", "3,5") never have whitespace after the period, so they are never cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Lower-cased, without the final period. Multi-part ones ("z.B.") are matched as one token because
# the token before a boundary is everything back to the previous whitespace.
ABBREVIATIONS = frozenset("""
    abb abs abt adr allg anm apr aug bd bde bsp bspw bzgl bzw ca chr co dez di dipl do dr d.h ebd
    eigtl engl entspr etc ev evtl feb fa fr frl ggf gegr geb gebr gest ges hbf hg hr hrsg i.a i.d.r
    inkl insb jan jh jhd jr jul jun kap kfz kl lt max mi mio mind mo mrd mrz nov nr o.a o.ä o.g okt
    pkw pl prof rd s.o s.u sa sek sep sept sog so st std str tel u.a u.ä u.a.m u.u usw v.a v.chr
    vgl vs z.b z.t z.zt zb zt ziff zzgl
""".split())

_BOUNDARY = re.compile(
    r"""(?P<end>[.!?…]+)            # sentence-final punctuation
        (?P<close>["'”“’»«)\]]*)    # closing quotes or brackets
        \s+
        (?=["'„“‚‘»«(\[]*[A-ZÄÖÜ0-9])  # a sentence can start here""",
    re.VERBOSE,
)
_ORDINAL = re.compile(r"\d{1,3}")
_SPACES = re.compile(r"\s+")


def _is_abbreviation(token: str) -> bool:
    word = token.lstrip("\"'„“‚‘»«([").rstrip(".").lower()
    if _ORDINAL.fullmatch(word):
        return True
    if len(word) == 1 and word.isalpha():
        return True  # initials and the parts of "z. B.", "d. h."
    # "Goethestr.", "Hauptstr.": street names; no German word ends in "str" otherwise.
    return word in ABBREVIATIONS or word.endswith("str")


def split_sentences(line: str) -> list[str]:
    """Sentences of one line of text, whitespace-normalized; [] for a blank line."""
    line = _SPACES.sub(" ", line).strip()
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(line):
        cut = match.end("close")
        if match["end"] == "." and not match["close"]:
            token = line[start:match.start("end") + 1].rsplit(" ", 1)[-1]
            if _is_abbreviation(token):
                continue
        sentences.append(line[start:cut])
        start = match.end()
    if start < len(line):
        sentences.append(line[start:])
    return sentences


def segment(text: str) -> list[list[str]]:
    """The text as lines of sentences: ``[[s1, s2], [], [s3]]`` for "s1 s2\\n\\ns3"."""
    return [split_sentences(line) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]


def translate_layout(texts: Sequence[str], translate: Callable[[list[str]], list[str]]) -> list[str]:
    """Translate every sentence of every text in one call of ``translate``, keeping the layout.

    ``translate`` gets a flat list of sentences and must return one string per sentence."""
    layouts = [segment(text) for text in texts]
    flat = [s for layout in layouts for line in layout for s in line]
    done = iter(translate(flat) if flat else [])
    return ["\n".join(" ".join(next(done) for _ in line) for line in layout).strip("\n") for layout in layouts]
