"""Mozilla's German localizations (Firefox ESR, Thunderbird) as training pairs of UI strings.

Debian's ``firefox-esr-l10n-de`` and ``thunderbird-l10n-de`` install a language pack,
``langpack-de@firefox-esr.mozilla.org.xpi`` beside the program (``/usr/lib/firefox-esr/browser/
extensions/``, ``/usr/lib/thunderbird/extensions/``). It holds the German side only. The English
side is built into the program itself: its ``omni.ja`` archives (``/usr/lib/firefox-esr/omni.ja``
and ``browser/omni.ja``; Thunderbird's ``omni.ja``) hold the same files under ``en-US`` where the
language pack has ``de`` (``localization/de/browser/menubar.ftl`` and ``localization/en-US/
browser/menubar.ftl``), so ``read_mozilla(path)`` needs the programs' packages too
(``firefox-esr``, ``thunderbird``), installed or unpacked with ``dpkg -x``.

Both sides are read with Mozilla's own parser (moz-l10n: Fluent ``.ftl``, ``.properties``,
``.dtd``; nothing is executed) and paired by file and message id (a Fluent attribute by its name
too: ``.label``, ``.tooltiptext``). A message's text is written as a template:

* a variable is a brace directive (``{ $count }`` -> ``{count}``), which ``model.data.software``
  turns into a placeholder as it does for any catalog;
* a term is its value in the same language (``{ -brand-short-name }`` -> ``Firefox``), the default
  variant where it has several (German grammatical cases);
* a select expression (plural forms, platforms) gives one pair per variant key both sides have;
  ``.properties`` plural forms (``#1 Tab;#1 Tabs``) are paired form by form;
* access and command keys, and style or size attributes, are not text and are left out.

Each pair then goes through the same checks as a gettext catalog's (``software.clean_pair``):
no untranslated, laid-out, wordless, wrong-language or directive-mismatched pair.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from moz.l10n.model import CatchallKey, Entry, Expression, Message, SelectMessage, VariableRef
from moz.l10n.resource import parse_resource

from model.data.corpus import CorpusError, Pair
from model.data.software import clean_pair

GERMAN, ENGLISH = "de", "en-US"
LANGPACK = "langpack-de@*.xpi"
FORMATS = (".ftl", ".properties", ".dtd")
# Entries and Fluent attributes that are keys or layout, not text to translate.
NOT_TEXT = frozenset({"accesskey", "commandkey", "key", "keycode", "modifiers", "style", "width", "height",
                      "size"})
_PLURAL_COUNT = re.compile(r"#([1-9])")
# Mozilla's printf has a capital %S (and %1$S) for strings; PluralForm counts are #1, #2.
_MOZILLA_PRINTF = re.compile(r"%([1-9][0-9]?\$)?S")

Key = tuple[str, ...]  # (file, message id, attribute or "", variant)


def application_files(path: str | os.PathLike) -> list[tuple[Path, list[Path]]]:
    """Each German language pack under ``path`` (a folder, or the ``.xpi`` itself) with the
    ``omni.ja`` archives of its program: those in the folders above the pack, up to ``path``."""
    root = Path(path)
    if not root.exists():
        raise CorpusError(f"no such file or folder: {str(path)!r}")
    packs = [root] if root.is_file() else sorted(root.rglob(LANGPACK))
    if not packs:
        raise CorpusError(f"no Mozilla language pack ({LANGPACK}) under {str(path)!r}")
    found = []
    for pack in packs:
        archives: dict[Path, Path] = {}
        for folder in pack.parents:
            for candidate in (folder / "omni.ja", folder / "browser" / "omni.ja"):
                if candidate.is_file():
                    archives.setdefault(candidate.resolve(), candidate)
            if root.is_dir() and folder == root:
                break
        if not archives:
            raise CorpusError(f"no omni.ja (the English strings) beside {str(pack)!r}: the program's "
                              "own package (firefox-esr, thunderbird) is needed too")
        found.append((pack, sorted(archives.values())))
    return found


def canonical(name: str, locale: str) -> str:
    """A localization file's path with its locale folders written ``@`` and the language pack's
    ``browser/`` prefix dropped, so both languages' copies have one name."""
    parts = ["@" if part == locale else part for part in PurePosixPath(name).parts]
    if locale == GERMAN and parts[0] == "browser":
        parts = parts[1:]
    return "/".join(parts)


def _files(archive: Path, locale: str) -> Iterator[tuple[str, bytes]]:
    try:
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.endswith(FORMATS) and locale in PurePosixPath(name).parts:
                    yield canonical(name, locale), zf.read(name)
    except (OSError, zipfile.BadZipFile) as exc:
        raise CorpusError(f"cannot read Mozilla archive {str(archive)!r}: {exc}") from None


def read_mozilla(path: str | os.PathLike) -> list[Pair]:
    """The distinct cleaned ``(german, english)`` pairs of every Mozilla language pack under
    ``path``, in file and message order."""
    found: dict[Pair, None] = {}
    for pack, archives in application_files(path):
        german = dict(_files(pack, GERMAN))
        english = {name: data for archive in archives for name, data in _files(archive, ENGLISH)
                   if name in german}
        de_texts, en_texts = _texts(german), _texts(english)
        for key, de in de_texts.items():
            en = en_texts.get(key)
            if en is not None:
                pair = clean_pair(de, en)
                if pair is not None:
                    found.setdefault(pair)
    return list(found)


def _texts(files: dict[str, bytes]) -> dict[Key, str]:
    """Every text of ``files`` by (file, id, attribute, variant), terms resolved."""
    entries = []
    for name in sorted(files):
        try:
            resource = parse_resource(name, files[name])
        except Exception:  # noqa: BLE001 - one malformed file costs its strings, not the corpus
            continue
        entries += [(name, entry) for section in resource.sections for entry in section.entries
                    if isinstance(entry, Entry)]
    terms = {entry.id[0]: entry.value for name, entry in entries
             if name.endswith(".ftl") and entry.id and entry.id[0].startswith("-")}
    texts: dict[Key, str] = {}
    for name, entry in entries:
        ident = ".".join(entry.id)
        if not ident or ident.startswith("-") or ident.rsplit(".", 1)[-1].lower() in NOT_TEXT:
            continue
        messages = [("", entry.value)] + [(attribute, message) for attribute, message in entry.properties.items()
                                          if attribute.lower() not in NOT_TEXT]
        for attribute, message in messages:
            for variant, text in _variants(message, terms):
                forms = _properties_forms(text) if name.endswith(".properties") else [text]
                for k, form in enumerate(forms):
                    if form.strip():
                        texts[(name, ident, attribute, f"{variant}#{k}" if len(forms) > 1 else variant)] = form
    return texts


def _properties_forms(text: str) -> list[str]:
    """A ``.properties`` text's plural forms (``#1 Tab;#1 Tabs``; one form where it has none) with
    Mozilla's directives written as the printf and Qt ones that ``model.data.software`` knows:
    ``%S`` -> ``%s``, ``%1$S`` -> ``%1$s``, ``#1`` -> ``%1``."""
    text = _MOZILLA_PRINTF.sub(lambda m: f"%{m[1] or ''}s", text)
    forms = text.split(";") if ";" in text and _PLURAL_COUNT.search(text) else [text]
    return [_PLURAL_COUNT.sub(r"%\1", form) for form in forms]


def _variants(message: Message, terms: dict[str, Message], depth: int = 0) -> list[tuple[str, str]]:
    """``[(variant key, text)]`` of a message: one for a plain pattern, one per variant of a select
    message (the catch-all key written ``*other``); [] where the text cannot be written (an unknown
    term, a message reference)."""
    if isinstance(message, SelectMessage):
        found = []
        for keys, pattern in message.variants.items():
            text = _pattern(pattern, terms, depth)
            if text is not None:
                found.append(("|".join(f"*{key.value}" if isinstance(key, CatchallKey) else key for key in keys), text))
        return found
    text = _pattern(message.pattern, terms, depth)
    return [] if text is None else [("", text)]


def _pattern(pattern, terms: dict[str, Message], depth: int) -> str | None:
    parts = []
    for part in pattern:
        if isinstance(part, str):
            parts.append(part)
        elif not isinstance(part, Expression):                        # markup
            return None
        elif isinstance(part.arg, VariableRef):                       # { $count }, { NUMBER($count) }
            parts.append("{" + part.arg.name + "}")
        elif part.function == "message" and part.arg in terms and depth < 3:  # { -brand-short-name }
            variants = _variants(terms[part.arg], terms, depth + 1)
            default = [text for key, text in variants if key.startswith("*") or not key]
            if not default:
                return None
            parts.append(default[0])
        elif isinstance(part.arg, str) and part.function is None:    # a string literal { "" }
            parts.append(part.arg)
        else:
            return None
    return "".join(parts)
