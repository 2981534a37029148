"""Software strings: format directives, accelerator markers and the checks a localization pair passes.

A UI string is a template: ``Die Datei %s wurde nicht gefunden.``, ``Willkommen, {name}!``. Its
directives are code and must come back exactly, so ``mask_directives`` turns the directives of a
training pair into placeholders (``model.network.placeholders``), numbered in German order as the
pipeline numbers the spans it masks; a pair whose two sides do not hold the same directives is
misaligned and dropped.  Recognised (``DIRECTIVE``):

* printf: ``%s %d %5.2f %-10s %1$s %lu %%``, Mozilla's ``%S`` and Apple's ``%@``; Python ``%(name)s``;
* Fluent (Mozilla): ``{ $count }``, ``{ -brand-short-name }``, ``{ NUMBER($size) }``;
* braces: ``{name}``, ``{0}``, ``{0:.2f}``, ``{name!r}``, ``{}``; Ruby ``%{name}``;
* Qt ``%1``; LibreOffice ``%PRODUCTNAME``; shell and Make ``$VAR``, ``${var}``, ``$(ARG1)``;
* markup tags ``<b>``, ``</a>`` and HTML entities ``&amp;``.

Accelerator markers (GTK ``_Datei``, Qt/KDE ``&Datei``, LibreOffice ``~Datei``) are taken out of
both sides by ``strip_accelerators``: the model translates words, and where a marker goes is the
localization tool's decision, not the model's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from model.data.corpus import normalize
from model.data.language import wrong_language
from model.network.placeholders import OTHER_SLOTS, placeholder

# A printf conversion glued to a word is German, not a directive: "eine 50%ige Lösung".
_PRINTF = (r"%(?:[0-9]+\$)?[-+#0]*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?"
           r"[diouxXeEfFgGaAcsp%S@](?![^\W\d_])")
FORMAT_DIRECTIVE = "|".join([
    r"%\([A-Za-z_][\w.]*\)[-+#0]*[0-9]*(?:\.[0-9]+)?[diouxXeEfFgGcrsa]",   # Python %(name)s
    r"%\{[A-Za-z_]\w*\}",                                                   # Ruby %{name}
    r"%[A-Z][A-Z0-9_]+(?![a-z])",                                           # LibreOffice %PRODUCTNAME
    _PRINTF,
    r"%[1-9][0-9]?(?![0-9])",                                               # Qt %1
    r"\{\{-?\s*[A-Za-z_$][\w.$]*\s*(?:,[^{}]*)?\}\}",                         # i18next/Handlebars {{name}}
    # Fluent (Mozilla): { $count }, { -brand-short-name }, { NUMBER($size, maximumFractionDigits: 1) }
    r"\{ *(?:\$[A-Za-z][\w-]*|-[A-Za-z][\w-]*|[A-Z][A-Z0-9_]*\( *\$[A-Za-z][\w-]*(?: *, *[A-Za-z]+: *[\w.\"-]+)* *\)) *\}",
    r"\{(?:[A-Za-z_][\w.]*|[0-9]+)?(?:![rsa])?(?::[^{}\s]*)?\}",            # {name} {0:.2f} {}
    r"\$\{[A-Za-z_]\w*\}|\$\([A-Za-z_][\w.]*\)|\$[A-Z_][A-Z0-9_]*\b",       # ${var} $(ARG1) $VAR
])
"""The format directives of a template, as a regular expression's source (the pipeline protects
the same directives in what users send)."""
DIRECTIVE = re.compile("|".join([
    FORMAT_DIRECTIVE,
    r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>",                                 # <b> </a> <br/>
    r"&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);",                                  # &amp; &#160;
]))
_LETTER = r"[^\W\d_]"
_MARKERS = {marker: re.compile(rf"{re.escape(marker)}(?={_LETTER})") for marker in "_&~"}
_ENTITY = re.compile(r"&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);")
_WORD_AT = re.compile(r"[\w&~]*$"), re.compile(r"^[\w&~]*")


def directives(text: str) -> list[str]:
    """The format directives of ``text`` in order."""
    return DIRECTIVE.findall(text)


# The format directives the pipeline protects in a text (``pipeline.rules.verbatim`` masks these).
FORMAT = re.compile(rf"(?<![\w%$]){FORMAT_DIRECTIVE}")
# A directive that stands for a number: printf's and Python's numeric conversions, a brace field
# with a numeric format ("{0:.2f}").
_NUMBER_DIRECTIVE = re.compile(r"%(?:[0-9]+\$|\([^)]*\))?[-+#0 ]*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*))?"
                               r"(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaA]|\{[^{}]*:[^{}]*[bcdoxXneEfFgG%]\}")
# Marks a translation may put against a directive where its source did not: commas and colons
# come with clauses, quotation marks and brackets as the target language writes them ("Lösche
# %s, wenn ...", "Datei „%s“", "`%s'").
_MOVABLE = frozenset(",;:!?\"'`´„“”‚‘’»«‹›()[]{}")
# A sentence's last marks: after a directive that ends a sentence ("Verschieben nach %s?").
_ENDING = re.compile(r"[.!?…]+(?=[\"'`´„“”‚‘’»«‹›)\]]*(?:\s|\Z))")
_HYPHENS = "-‐‑–"


def _glue(char: str) -> str:
    """What a glued character is, as sides are compared: any letter is a word ("%sCommit" -> "%scommit"),
    "…" is "..."."""
    return "letter" if char.isalpha() else "." if char == "…" else char


def stray_glue(source: str, output: str, tokens: Mapping[str, str] | None = None) -> list[int]:
    """Offsets in ``output`` of the characters glued to a directive (nothing between) that ``source``
    does not have glued at that side of that directive: "Move %d photo to %s?" -> "%d- Foto nach %s
    verschieben?" has a stray "-" after "%d". Allowed: what the source glues there ("the %s-based
    editor" -> "der %s-basierte Editor"; a word for a word), ``_MOVABLE`` marks, the sentence's last
    marks where the output ends no more sentences than the source (else one of them is the model's:
    "%d. Foto"), and a hyphen that joins a directive standing for a name, not a number, to a word:
    German writes "%s process" as "%s-Prozess" (a compound), but "%d file" as "%d Datei".

    ``tokens``: each directive as written in both texts -> the directive it stands for (a masked model
    input and its output write placeholders); None: the format directives of ``source`` (``FORMAT``)."""
    found = dict(tokens) if tokens is not None else {m[0]: m[0] for m in FORMAT.finditer(source)}
    if not found:
        return []
    pattern = re.compile("|".join(re.escape(t) for t in sorted(found, key=len, reverse=True)))
    glued: dict[tuple[str, int], set[str]] = {}     # (directive, -1 before / 1 after) -> what the source glues
    for m in pattern.finditer(source):
        glued.setdefault((m[0], -1), set()).add(_glue(source[m.start() - 1]) if m.start() else "")
        glued.setdefault((m[0], 1), set()).add(_glue(source[m.end()]) if m.end() < len(source) else "")
    stray = []
    ends = len(_ENDING.findall(output)) <= len(_ENDING.findall(source))
    for m in pattern.finditer(output):
        for side, at in ((-1, m.start() - 1), (1, m.end())):
            if not 0 <= at < len(output) or output[at].isspace() or output[at] in _MOVABLE:
                continue
            char, beyond = output[at], output[at + side] if 0 <= at + side < len(output) else ""
            if _glue(char) in glued.get((m[0], side), ()) or side == 1 and ends and _ENDING.match(output, at):
                continue
            if char in _HYPHENS and beyond.isalpha() and not _NUMBER_DIRECTIVE.fullmatch(found[m[0]]):
                continue
            stray.append(at)
    return sorted(set(stray))


def _word_around(text: str, index: int) -> str:
    return _WORD_AT[0].search(text[:index])[0] + _WORD_AT[1].search(text[index:])[0]


def strip_accelerators(de: str, en: str) -> tuple[str, str]:
    """Both sides without their keyboard accelerator marker (``_`` ``&`` ``~`` before a letter).

    A side is changed only where it holds exactly one such marker of a kind (two are text: "A & B
    & C"), not inside an HTML entity, and, for ``_``, not in a word that both sides share
    (``file_name`` is an identifier, ``Ö_ffnen`` / ``_Open`` are accelerators)."""
    for marker, pattern in _MARKERS.items():
        sides = [de, en]
        for k, text in enumerate(sides):
            found = [m.start() for m in pattern.finditer(text)
                     if not (marker == "&" and _ENTITY.match(text, m.start()))]
            if len(found) != 1:
                continue
            at = found[0]
            if marker == "_" and at > 0 and text[at - 1].isalnum():
                word = _word_around(text, at)
                if word in sides[1 - k]:
                    continue
            sides[k] = text[:at] + text[at + 1:]
        de, en = sides
    return de, en


def mask_directives(de: str, en: str) -> tuple[str, str] | None:
    """The pair with each directive replaced by an X placeholder (same text, same placeholder), or
    None when the sides hold different directives or more distinct ones than there are slots."""
    found_de, found_en = directives(de), directives(en)
    if sorted(found_de) != sorted(found_en):
        return None
    if not found_de:
        return de, en
    symbols: dict[str, str] = {}
    for text in found_de:
        if text not in symbols:
            if len(symbols) == OTHER_SLOTS:
                return None
            symbols[text] = placeholder("X", len(symbols) + 1)
    return (DIRECTIVE.sub(lambda m: symbols[m[0]], de), DIRECTIVE.sub(lambda m: symbols[m[0]], en))


_HAS_WORD = re.compile(rf"{_LETTER}{{2,}}")


def has_words(text: str) -> bool:
    """Whether anything but directives, markup and punctuation is left: "%s: %s" has no words."""
    return _HAS_WORD.search(DIRECTIVE.sub(" ", text)) is not None


_LAYOUT = re.compile(r"\n.|\S {3,}\S|\t")


def clean_pair(de: str, en: str) -> tuple[str, str] | None:
    """A localization pair (German, English) made ready for training, or None when it should not be
    learned from: untranslated, laid out (multi-line usage screens, space-aligned tables), without
    words, with different directives on its two sides, or clearly in the wrong language. Markers are
    stripped and directives masked (``strip_accelerators``, ``mask_directives``)."""
    if de == en or _LAYOUT.search(de.strip()) or _LAYOUT.search(en.strip()):
        return None
    de, en = strip_accelerators(normalize(de), normalize(en))
    masked = mask_directives(de, en)
    if masked is None or de == en or not has_words(de) or not has_words(en) or wrong_language(de, en):
        return None
    return masked
