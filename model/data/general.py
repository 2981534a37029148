"""General-domain German: chat, customer-support e-mail, news and Wikipedia text.

The other corpora are phrasebook sentences, a dictionary and software strings; what people write
(chats, e-mails, news) is what they lack. Each reader takes the layout its source publishes
(docs/data.md says where each comes from and under which licence):

* ``read_bconstrast(DIR)``: the BConTrasT customer-agent chats (Unbabel, WMT 2020 chat task),
  ``train.json``, ``dev.json`` and ``test1_corpus-with_gold_references.json``: ``{dialogue id:
  [{"speaker", "source", "target", ...}]}``. Agents wrote English (German in ``target``),
  customers German (in ``source``). ``held_out_bconstrast`` gives its own dev and test sets,
  which train.py holds out as the domain "chat".
* ``read_ud_pud(FILE)``: the ``# text`` / ``# text_en`` comments of a CoNLL-U file
  (UD_German-PUD: news and Wikipedia sentences translated from English).
* ``read_xquad(DIR)``: ``xquad.de.json`` + ``xquad.en.json`` (SQuAD layout): questions paired by
  id, paragraphs by position; a paragraph is paired sentence by sentence where both sides split
  into the same number of sentences, else kept whole (the length filter drops the longest).

Pairs are ``(german, english)`` in file order (consecutive pairs of a dialogue or a paragraph stay
neighbours, which the concatenation augmentation builds on). Bad input raises ``CorpusError``
with one line that names the file.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from model.data.corpus import CorpusError, Pair, PathLike

BCONTRAST_TRAIN = "train.json"
BCONTRAST_DEV = "dev.json"
BCONTRAST_TEST = "test1_corpus-with_gold_references.json"

# A sentence ends at . ! ? or … (with its closing quotes or brackets) before a space and an upper-case
# letter, digit or opening quote. Abbreviations ("z. B. Berlin") can split wrongly; then the two
# sides usually differ in count and the paragraph is kept whole instead of misaligned.
_SENTENCE_END = re.compile(r"[.!?…][\"'“”»«’)\]]*(?=\s+[\"'„“»«(]?[A-ZÄÖÜ0-9])")


def _load_json(file: Path, shown: str):
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(f"corpus not found: {shown!r}") from None
    except UnicodeDecodeError:
        raise CorpusError(f"cannot read corpus {shown!r}: not valid UTF-8") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"cannot read corpus {shown!r}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except OSError as exc:
        raise CorpusError(f"cannot read corpus {shown!r}: {exc.strerror or exc}") from None


def _bconstrast_dir(path: PathLike) -> Path:
    """The folder of a BConTrasT checkout; its train.json may be named instead."""
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    if not folder.is_dir():
        raise CorpusError(f"corpus not found: {os.fspath(path)!r} (expected BConTrasT's folder with {BCONTRAST_TRAIN})")
    return folder


def _bconstrast_file(file: Path) -> list[Pair]:
    shown = str(file)
    data = _load_json(file, shown)
    if not isinstance(data, dict):
        raise CorpusError(f"cannot read corpus {shown!r}: expected an object of dialogues, got {type(data).__name__}")
    pairs: list[Pair] = []
    for dialogue, turns in data.items():
        if not isinstance(turns, list):
            raise CorpusError(f"cannot read corpus {shown!r}: dialogue {dialogue!r} is not a list of turns")
        for turn in turns:
            if not isinstance(turn, dict) or not isinstance(turn.get("source"), str) \
                    or not isinstance(turn.get("target"), str):
                raise CorpusError(f"cannot read corpus {shown!r}: dialogue {dialogue!r} has a turn without "
                                  "string 'source' and 'target'")
            speaker = turn.get("speaker")
            if speaker == "customer":      # customers' German is the source
                pairs.append((turn["source"], turn["target"]))
            elif speaker == "agent":       # agents wrote English, translated into German
                pairs.append((turn["target"], turn["source"]))
            else:
                raise CorpusError(f"cannot read corpus {shown!r}: dialogue {dialogue!r} has speaker "
                                  f"{speaker!r}, expected 'agent' or 'customer'")
    return pairs


def read_bconstrast(path: PathLike) -> list[Pair]:
    """The training dialogues (``train.json``) of BConTrasT, turn by turn."""
    return _bconstrast_file(_bconstrast_dir(path) / BCONTRAST_TRAIN)


def held_out_bconstrast(path: PathLike) -> tuple[list[Pair], list[Pair]]:
    """BConTrasT's own dev and test sets (the shared task's), never trained on."""
    folder = _bconstrast_dir(path)
    return _bconstrast_file(folder / BCONTRAST_DEV), _bconstrast_file(folder / BCONTRAST_TEST)


def read_ud_pud(path: PathLike) -> list[Pair]:
    """``(# text, # text_en)`` of each sentence of a CoNLL-U file that has both."""
    shown = os.fspath(path)
    file = Path(path)
    if not file.is_file():
        raise CorpusError(f"corpus not found: {shown!r} (expected a CoNLL-U file such as de_pud-ud-test.conllu)")
    try:
        lines = file.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError:
        raise CorpusError(f"cannot read corpus {shown!r}: not valid UTF-8") from None
    except OSError as exc:
        raise CorpusError(f"cannot read corpus {shown!r}: {exc.strerror or exc}") from None
    pairs: list[Pair] = []
    text = text_en = None
    for line in lines + [""]:        # a blank line ends a sentence; the sentinel ends the last
        line = line.rstrip("\r")
        if not line.strip():
            if text and text_en:
                pairs.append((text, text_en))
            text = text_en = None
        elif line.startswith("#"):
            key, eq, value = line[1:].partition("=")
            if eq and key.strip() == "text":
                text = value.strip()
            elif eq and key.strip() == "text_en":
                text_en = value.strip()
    if not pairs:
        raise CorpusError(f"cannot read corpus {shown!r}: no sentence has both '# text' and '# text_en'")
    return pairs


def _squad_items(file: Path) -> list[tuple[list[str], list[tuple[str, str]]]]:
    """Per article: its paragraphs' contexts and its (question id, question) in order."""
    shown = str(file)
    data = _load_json(file, shown)
    try:
        articles = []
        for article in data["data"]:
            contexts, questions = [], []
            for paragraph in article["paragraphs"]:
                contexts.append(str(paragraph["context"]))
                questions += [(str(qa["id"]), str(qa["question"])) for qa in paragraph["qas"]]
            articles.append((contexts, questions))
        return articles
    except (KeyError, TypeError) as exc:
        raise CorpusError(f"cannot read corpus {shown!r}: not SQuAD's layout (data/paragraphs/context/qas: "
                          f"missing {exc})") from None


def split_sentences(text: str) -> list[str]:
    """A paragraph's sentences; the closing quote of a sentence stays with it."""
    sentences, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        sentences.append(text[start:match.end()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [sentence for sentence in sentences if sentence]


def read_xquad(path: PathLike, lang: str = "de") -> list[Pair]:
    """XQuAD's paragraphs (by sentence where the counts agree) and questions, German with English."""
    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    de_file, en_file = folder / f"xquad.{lang}.json", folder / "xquad.en.json"
    if not de_file.is_file() or not en_file.is_file():
        raise CorpusError(f"corpus not found: {os.fspath(path)!r} has no xquad.{lang}.json and xquad.en.json")
    de_articles, en_articles = _squad_items(de_file), _squad_items(en_file)
    if [len(c) for c, _ in de_articles] != [len(c) for c, _ in en_articles]:
        raise CorpusError(f"cannot read corpus {os.fspath(path)!r}: {de_file.name} and {en_file.name} "
                          "differ in articles or paragraphs")
    pairs: list[Pair] = []
    for (de_contexts, de_questions), (en_contexts, en_questions) in zip(de_articles, en_articles):
        for de, en in zip(de_contexts, en_contexts):
            de_sentences, en_sentences = split_sentences(de), split_sentences(en)
            if len(de_sentences) == len(en_sentences):
                pairs += zip(de_sentences, en_sentences)
            else:
                pairs.append((de, en))
        english = dict(en_questions)
        pairs += [(question, english[qid]) for qid, question in de_questions if qid in english]
    return pairs
