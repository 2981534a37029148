"""The FreeDict German-English dictionary (Debian ``dict-freedict-deu-eng``) as word/phrase pairs.

FreeDict's ``deu-eng`` (© 1995-2022 Frank Richter, 2020-2022 Einhard Leichtfuß, GPL-3.0-or-later)
is Ding 1.9 converted to TEI and rendered for dictd: ``freedict-deu-eng.index`` has one
``key<TAB>offset<TAB>length`` line per entry (offset and length are numbers in dictd's base64
digits, A-Z a-z 0-9 + /, into the uncompressed text), and ``freedict-deu-eng.dict.dz`` is the
text, dictzip-compressed (a gzip file that ``gzip`` reads whole). The keys are lower-cased and
stripped of punctuation ("00databaseinfo", "mit jdm in konflikt geraten", "" for "(´)"), so the
German side is taken from the entry itself, whose lines are::

    Haus /hˈaʊs/ <neut, n, sg>                          headword /pronunciation/ <grammar>
     [adm.] establishment <n>, institution <n>           [labels] translation <pos> [label], ...
             Note: of a state                            a gloss
          "ein Haus bauen"  - build a house              an example
       Synonyms: {Einrichtung}, {Institution}           cross-references, each its own entry
     see: {Einrichtungen}, {Anstalten}

``read_freedict`` pairs each headword with each translation of its sense lines, in order (FreeDict
numbers the senses of an entry that has several, "1. ", "2. ", which is removed; in deu-eng 1.9-fd1
each entry has one sense, and a word with several senses has several entries), keeping:

* the headword without pronunciation (``/.../``), the abbreviation or symbol FreeDict puts in
  parentheses after it ("(DDR /.../)", "(§)") and grammar (``<fem, n, sg>``);
* the translations, split at top-level ", " (not inside ``[]``, ``<>``, ``()``), without grammar
  (``<n>``), labels (``[Br.]``, ``[coll.]``, ``[fin.]``) and optional parts in parentheses that
  stand as words of their own ("(allein) im Haus bleiben" -> "im Haus bleiben"; "nitrogen(II)
  oxide" stays);
* the translations the TEI rendering moved into a gloss: Ding's "to add sth. (up/together); to sum
  sth. up" comes out as "add sth. <v>" plus "Note: up/together, sum sth. up <v>", so the parts of
  a note after its first ", " that carry a grammar tag are translations too.

Dropped: the 00-database-* entries (dictd's header: info, URL, licence); glosses, examples,
"Synonym(s):" and "see:" cross-references (the entries they name are read as entries of their
own); abbreviations and symbols that the rendering glued to a translation ("German Democratic
Republic <n>GDR,  /.../" -> "German Democratic Republic"; the translation itself where nothing
marks where the abbreviation starts, as in "extra-pair copulationEPC"); as in ``ding``, junk for a
general-domain translator: entries whose headword or translation is a sentence (FreeDict keeps
many of Ding's example sentences as entries), combining forms ("Haus…"), bird species (entries
labelled ``[ornith.]``) and ``[zool.]``/``[bot.]`` entries glossed with a Latin name or rank
("Note: Hemaris tityus", "Note: botanical genus"), and archaic/obsolete/rare terms (a label such
as ``[veraltet]`` before the translations drops the entry, one after a translation drops that
translation). Placeholders ("mit jdm. in Konflikt geraten" / "come into conflict with sb.") and
"/" alternatives are kept as written. Pairs with an empty side, a side over 100 characters or the
same text on both sides are dropped, and each pair is kept once, at its first place in index order.

Bad input raises ``CorpusError`` with a one-line message naming the file.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from model.data.corpus import CorpusError, Pair, normalize
from model.data.ding import is_sentence

FREEDICT_ATTRIBUTION = ("FreeDict German–English dictionary (deu-eng, from Ding), © 1995-2022 Frank Richter, "
                        "2020-2022 Einhard Leichtfuß (https://freedict.org/)")
FREEDICT_LICENSE = "GPL-3.0-or-later"

NAME = "freedict-deu-eng"
MAX_CHARS = 100

_GZIP_MAGIC = b"\x1f\x8b"
_DIGITS = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
# dictfmt writes "00-database-info" as the key "00databaseinfo" unless run with --allchars.
_HEADER_KEY = re.compile(r"00-?database")

# "Abfahrt /ˈapfˌɑːɾt/ (Abf. /ˈapf/) <fem, n, sg>": the pronunciation holds no "/", so the lazy
# headword ends at the first " /" after which only a pronunciation and the optional parts follow
# ("den/einen Abgang machen /deːn .../ <v>", "frech / patzig sein /frˈɛç .../").
_HEAD = re.compile(r"^(?P<head>.*?)(?: /[^/]*/)?(?: \(.*\))?(?: <[^<>]*>)?$")
_LEADING_LABELS = re.compile(r"^\s*((?:\[[^\[\]]*\]\s*)*)")
_SENSE_NUMBER = re.compile(r"^\s*\d+\.\s+")
_XREFS = ("Synonym:", "Synonyms:", "Antonym:", "Antonyms:", "see:", "See also:")
# ", " outside brackets: "cameraman <n> [Film, TV]" and "appurtenances <pl, n>" are one piece each.
_SEPARATOR = re.compile(r",\s+(?![^\[\]<>()]*[\]>)])")
# The ",  /.../" after a glued abbreviation, and maybe the next one: "cotangent <n>cot,  /kˈoːt/ ctg,  /.../".
_PRONUNCIATION = re.compile(r"\s*/[^/]*/")
_TAG = re.compile(r"<[^<>]*>")
_LABEL = re.compile(r"\[([^\[\]]*)\]")
# Optional words in parentheses, nested one level; not "nitrogen(II)" or "Chlor(I)nitrat".
_GLOSS = re.compile(r"(?:^|\s+)\((?:[^()]|\([^()]*\))*\)(?=$|[\s,.;:!?])")
_UNWANTED = frozenset({"veraltet", "veraltend", "alt", "obs.", "archaic", "dated", "selten", "rare"})
_TAXON_NOTE = re.compile(r"[A-Z][a-z]+(?: [a-z]+)?|(?:botanical|zoological|botanische|zoologische) .*")
_WORD = re.compile(r"\w")
_SENTENCE_END = frozenset(".!?\"“‘'")


def _number(digits: str) -> int | None:
    """A dictd base64 number ("BT/Op"), most significant digit first; None if not one."""
    value = 0
    try:
        for c in digits:
            value = value * 64 + _DIGITS[c]
    except KeyError:
        return None
    return value if digits else None


def _locate(path: str | os.PathLike) -> tuple[Path, Path]:
    """The index file and the data files' common stem (``dir/freedict-deu-eng``) of ``path``."""
    shown = os.fspath(path)
    file = Path(path)
    if file.is_dir():
        index = file / f"{NAME}.index"
        if not index.is_file():
            raise CorpusError(f"FreeDict dictionary not found: {shown!r} has no {NAME}.index")
        return index, file / NAME
    if not file.is_file():
        raise CorpusError(f"FreeDict dictionary not found: {shown!r}")
    for suffix in (".dict.dz", ".dict"):
        if file.name.endswith(suffix):
            stem = file.with_name(file.name[:-len(suffix)])
            index = stem.with_name(stem.name + ".index")
            if not index.is_file():
                raise CorpusError(f"FreeDict dictionary not found: {shown!r} has no index {os.fspath(index)!r}")
            return index, stem
    return file, file.with_name(file.name.removesuffix(".index"))


def _read_bytes(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read FreeDict dictionary {os.fspath(file)!r}: {exc.strerror or exc}") from None


def _read_index(file: Path) -> list[tuple[str, int, int]]:
    """``(key, offset, length)`` of every index line, in file order."""
    shown = os.fspath(file)
    try:
        text = _read_bytes(file).decode("utf-8")
    except UnicodeDecodeError:
        raise CorpusError(f"not a dictd index (not UTF-8 text): {shown!r}") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    entries = []
    for number, line in enumerate(lines, start=1):
        fields = line.removesuffix("\r").split("\t")
        offset, length = (_number(field) for field in fields[1:]) if len(fields) == 3 else (None, None)
        if offset is None or length is None:
            raise CorpusError(f"not a dictd index (line {number} is not 'headword<TAB>offset<TAB>length'): {shown!r}")
        entries.append((fields[0], offset, length))
    if not entries:
        raise CorpusError(f"not a dictd index (no entries): {shown!r}")
    return entries


def _read_data(stem: Path) -> tuple[bytes, str]:
    """The uncompressed text of ``stem.dict.dz`` (or ``stem.dict``) and the file's name."""
    file = next((f for f in (Path(f"{stem}.dict.dz"), Path(f"{stem}.dict")) if f.is_file()), None)
    if file is None:
        raise CorpusError(f"FreeDict dictionary not found: {os.fspath(stem.parent)!r} has no {stem.name}.dict.dz "
                          f"or {stem.name}.dict")
    shown = os.fspath(file)
    data = _read_bytes(file)
    if not data.startswith(_GZIP_MAGIC):
        return data, shown
    try:
        return gzip.decompress(data), shown
    except (gzip.BadGzipFile, EOFError, zlib.error):
        raise CorpusError(f"cannot read FreeDict dictionary {shown!r}: not a valid gzip (dictzip) file") from None


def _clean(text: str) -> str:
    """A term without grammar tags, labels and free-standing parentheses, whitespace normalized."""
    if "<" in text:
        text = _TAG.sub(" ", text)
    if "[" in text:
        text = _LABEL.sub(" ", text)
    if "(" in text:
        text = _GLOSS.sub("", text)
    return normalize(text)


def _usable(term: str) -> bool:
    """A word or phrase: some letter or digit, no combining-form ellipsis, not a sentence."""
    if not _WORD.search(term) or "…" in term or "..." in term:
        return False
    # is_sentence's regular expression is slow; most terms fail its test of the last character
    return term[-1] not in _SENTENCE_END or not is_sentence(term)


def _headword(line: str) -> str | None:
    head = _clean(_HEAD.match(line)["head"])
    return head if _usable(head) else None


def _translation(piece: str, abbreviated: bool) -> str | None:
    """One ", "-separated piece of a sense line as a translation; None for junk.

    Whatever follows a piece's grammar tag, labels aside, is an abbreviation or symbol glued to it
    ("section <n>s.", "acute <n>´"); ``abbreviated`` (a ",  /.../" piece follows) says one is glued
    on, which without a tag or label to end the translation cannot be cut off ("copulationEPC")."""
    if "[" in piece and not _UNWANTED.isdisjoint(_LABEL.findall(piece)):
        return None
    tag = piece.rfind("<") if ">" in piece else -1
    if tag >= 0:
        piece = piece[:tag]
    elif abbreviated:
        end = piece.rfind("]")
        if end < 0:
            return None
        piece = piece[:end + 1]
    term = _clean(piece)
    return term if _usable(term) else None


def _translations(text: str, tagged_only: bool = False) -> Iterator[str]:
    pieces = _SEPARATOR.split(text)
    for k, piece in enumerate(pieces):
        if _PRONUNCIATION.match(piece) or (tagged_only and not _TAG.search(piece)):
            continue
        abbreviated = k + 1 < len(pieces) and _PRONUNCIATION.match(pieces[k + 1]) is not None
        term = _translation(piece, abbreviated)
        if term:
            yield term


def parse_entry(article: str) -> list[Pair]:
    """The ``(german, english)`` pairs of one dictd entry of FreeDict, in order; [] for junk."""
    lines = article.split("\n")
    german = _headword(lines[0])
    if german is None:
        return []
    senses: list[tuple[str, list[str]]] = []  # (sense line, the notes right after it)
    notes: list[str] = []                     # every note, for the species test
    in_sense = False
    for line in lines[1:]:
        text = line.lstrip()
        if text.startswith("Note:"):
            notes.append(text[5:].strip())
            if in_sense:
                senses[-1][1].append(notes[-1])
        elif not text or (text[0] == '"' and line[0].isspace()) or text.startswith(_XREFS):
            in_sense = False  # a blank line, an example (indented; a translation may start with '"'), a reference
        else:
            senses.append((line, []))
            in_sense = True
    labels: set[str] = set()
    english: list[str] = []
    numbered = len(senses) > 1 and all(_SENSE_NUMBER.match(line) for line, _ in senses)
    for line, sense_notes in senses:
        if numbered:
            line = _SENSE_NUMBER.sub("", line)
        leading = _LEADING_LABELS.match(line)
        labels.update(_LABEL.findall(leading[1]))
        english.extend(_translations(line[leading.end():]))
        for note in sense_notes:  # "up/together, sum sth. up <v>": a gloss, then misplaced translations
            _, separator, rest = note.partition(", ")
            if separator and _TAG.search(rest):
                english.extend(_translations(rest, tagged_only=True))
    if labels & _UNWANTED or "ornith." in labels:
        return []
    if labels & {"zool.", "bot."} and any(_TAXON_NOTE.fullmatch(note) for note in notes):
        return []
    return [(german, en) for en in english]


def _keep(pair: Pair) -> bool:
    german, english = pair
    return 0 < len(german) <= MAX_CHARS and 0 < len(english) <= MAX_CHARS and german != english


def read_freedict(path: str | os.PathLike) -> list[Pair]:
    """The distinct ``(german, english)`` word/phrase pairs of FreeDict's deu-eng dictd files, in
    index order. ``path``: the ``.index`` file, the ``.dict.dz`` (or ``.dict``) file, or a folder
    holding ``freedict-deu-eng.index`` and ``freedict-deu-eng.dict.dz`` (or ``.dict``)."""
    index_file, stem = _locate(path)
    index = _read_index(index_file)
    data, shown = _read_data(stem)
    found: dict[Pair, None] = {}  # a dict: distinct and ordered
    seen: set[int] = set()        # several keys point at one entry ("ddr", "deutsche demokratische republik")
    for key, offset, length in index:
        if _HEADER_KEY.match(key) or offset in seen:
            continue
        seen.add(offset)
        if offset + length > len(data):
            raise CorpusError(f"cannot read FreeDict dictionary {shown!r}: entry {key!r} ends at byte "
                              f"{offset + length}, past the end of the text ({len(data)} bytes); truncated?")
        try:
            article = data[offset:offset + length].decode("utf-8")
        except UnicodeDecodeError:
            raise CorpusError(f"cannot read FreeDict dictionary {shown!r}: entry {key!r} is not valid UTF-8") from None
        for pair in parse_entry(article):
            if _keep(pair):
                found.setdefault(pair)
    return list(found)
