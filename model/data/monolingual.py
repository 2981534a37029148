"""Monolingual text: the sentences that back-translation gives a synthetic other side.

``read_texts(PATH)`` reads, in order:

* a CoNLL-U file (``.conllu``, plain or gzipped): the ``# text = ...`` comment of each sentence
  (Universal Dependencies treebanks, such as UD_English-EWT's web text: e-mails, reviews, blogs);
* any other file: one text a line, plain or gzipped, blank lines skipped;
* a folder: every ``.conllu`` and ``.txt`` file below it (``.gz`` too), in path order, so that a
  treebank kept as one file per document keeps each document's sentences together and in order
  (the concatenation augmentation joins neighbours).

Whitespace runs become one space (a tab could not stand in a TSV corpus). Bad input raises
``CorpusError`` with one line that names the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from model.data.corpus import CorpusError, PathLike, read_lines

TEXT_FILES = (".conllu", ".txt")
_SPACE = re.compile(r"\s+")


def _is_text_file(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return path.is_file() and name.endswith(TEXT_FILES)


def _conllu_texts(lines: list[str], shown: str) -> list[str]:
    texts = []
    for line in lines:
        if line.startswith("#"):
            key, eq, value = line[1:].partition("=")
            if eq and key.strip() == "text" and value.strip():
                texts.append(value.strip())
    if not texts:
        raise CorpusError(f"cannot read {shown!r}: a CoNLL-U file without any '# text = ...' line")
    return texts


def _file_texts(file: Path) -> list[str]:
    shown = os.fspath(file)
    lines = read_lines(file)
    if file.name.lower().removesuffix(".gz").endswith(".conllu"):
        texts = _conllu_texts(lines, shown)
    else:
        texts = [line for line in lines if line.strip()]
    return [_SPACE.sub(" ", text).strip() for text in texts]


def read_texts(path: PathLike) -> list[str]:
    """The texts of a file or a folder of files (module docstring), in order."""
    shown = os.fspath(path)
    root = Path(path)
    if root.is_dir():
        files = sorted((p for p in root.rglob("*") if _is_text_file(p)), key=lambda p: p.relative_to(root).as_posix())
        if not files:
            raise CorpusError(f"no .conllu or .txt file below {shown!r}")
        return [text for file in files for text in _file_texts(file)]
    if not root.is_file():
        raise CorpusError(f"file not found: {shown!r}")
    return _file_texts(root)
