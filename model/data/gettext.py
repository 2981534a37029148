"""gettext catalogs (``.mo``, ``.po``) as training pairs: English ``msgid``, German ``msgstr``.

Debian ships German catalogs in ``/usr/share/locale/de/LC_MESSAGES`` (every package with German
messages) and LibreOffice's in ``/usr/lib/libreoffice/program/resource/de/LC_MESSAGES``
(``libreoffice-l10n-de``). ``read_gettext(path)`` reads one catalog or every catalog under a
folder (polib parses both formats; nothing is executed) and keeps what a UI translator should
learn from:

* no header, no fuzzy (``.po``) or untranslated entry (empty, or ``msgstr == msgid``);
* plural entries give two pairs, ``msgstr[0]`` with ``msgid`` and ``msgstr[1]`` with
  ``msgid_plural`` (German has two forms; a catalog with other ``Plural-Forms`` is skipped);
* multi-line texts (usage screens, tables laid out with spaces) are left out: they are layout,
  not sentences;
* accelerator markers are stripped from both sides and format directives become placeholders
  (``model.data.software``); a pair whose sides hold different directives is dropped, as is one
  that has no words (``"%s: %s"``) or is clearly in the wrong language.

Pairs are distinct and in catalog order (files sorted by path).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from model.data.corpus import CorpusError, Pair
from model.data.software import clean_pair

SUFFIXES = (".mo", ".po")
_TWO_FORMS = re.compile(r"nplurals\s*=\s*2\b")


def catalog_files(path: str | os.PathLike) -> list[Path]:
    """The catalog itself, or every ``.mo``/``.po`` under a folder, sorted."""
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise CorpusError(f"gettext catalog or folder not found: {os.fspath(path)!r}")
    files = sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    if not files:
        raise CorpusError(f"no .mo or .po catalog under {os.fspath(path)!r}")
    return files


def _open(file: Path):
    import polib  # here, not at the top: train.py must start where polib is not installed (a lent GPU)

    try:
        return polib.mofile(str(file)) if file.suffix == ".mo" else polib.pofile(str(file))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise CorpusError(f"cannot read gettext catalog {str(file)!r}: {exc}") from None


def entry_pairs(catalog) -> Iterator[Pair]:
    """``(msgstr, msgid)`` of every translated, non-fuzzy entry, plural forms paired."""
    two_forms = _TWO_FORMS.search(catalog.metadata.get("Plural-Forms", "nplurals=2")) is not None
    for entry in catalog:
        if not entry.msgid or entry.obsolete or "fuzzy" in entry.flags:
            continue
        if entry.msgid_plural:
            forms = entry.msgstr_plural
            if two_forms and forms.get(0) and forms.get(1):
                yield forms[0], entry.msgid
                yield forms[1], entry.msgid_plural
        elif entry.msgstr:
            yield entry.msgstr, entry.msgid


def read_gettext(path: str | os.PathLike) -> list[Pair]:
    """The distinct cleaned ``(german, english)`` pairs of a catalog or a folder of catalogs."""
    found: dict[Pair, None] = {}
    for file in catalog_files(path):
        for de, en in entry_pairs(_open(file)):
            pair = clean_pair(de, en)
            if pair is not None:
                found.setdefault(pair)
    return list(found)
