"""Several training corpora, each given on the command line as ``[KIND:]PATH[@WEIGHT]``."""

from __future__ import annotations

from dataclasses import dataclass

from model.data.corpus import Pair, read_pairs
from model.data.ding import read_ding
from model.data.freedict import read_freedict
from model.data.general import held_out_bconstrast, read_bconstrast, read_ud_pud, read_xquad
from model.data.gettext import read_gettext
from model.data.helppages import read_help
from model.data.manuals import read_debian_reference, read_mallard
from model.data.mozilla import read_mozilla

# What each kind reads, and the domain whose dev and test pairs train.py holds out of it (None:
# it trains only). Ding's example sentences are everyday German that is not Tatoeba's, so they are
# a domain of their own to select on ("ding"); its word pairs are not sentences and only train.
# The general-domain corpora (model.data.general): BConTrasT's chats hold out the shared task's own
# dev and test sets ("chat"); the customer-support e-mails (``support``: line-aligned files, such as
# MT4All's) a split of their own; UD PUD's and XQuAD's few news and Wikipedia sentences only train
# (newstest serves as their dev, docs/v4-data.md). The manuals (model.data.manuals) only train too: a
# held-out split of each would take a third of its few thousand pairs, and "help" already tests the kind.
CORPUS_KINDS = ("pairs", "ding-sentences", "ding-words", "freedict", "gettext", "mozilla", "libreoffice-help",
                "bconstrast", "support", "ud-pud", "xquad", "debian-reference", "mallard")
HELD_OUT_DOMAINS = {"gettext": "ui", "mozilla": "ui", "libreoffice-help": "help", "ding-sentences": "ding",
                    "bconstrast": "chat", "support": "support"}


@dataclass(frozen=True)
class CorpusSpec:
    """One training corpus as given on the command line: ``[KIND:]PATH[@WEIGHT]``.

    ``KIND`` is ``pairs`` (the default: any format ``read_pairs`` reads), ``ding-sentences`` or
    ``ding-words`` (the example sentences or the word/phrase pairs of the Ding dictionary,
    ``model.data.ding``), ``freedict`` (FreeDict's dictd files, ``model.data.freedict``),
    ``gettext`` (a ``.mo``/``.po`` catalog or a folder of them, ``model.data.gettext``),
    ``mozilla`` (a folder holding Firefox's or Thunderbird's German language pack and the
    program's ``omni.ja``, ``model.data.mozilla``) or ``libreoffice-help`` (the help root holding
    ``de/`` and ``en-US/``, ``model.data.helppages``), ``bconstrast`` (BConTrasT's folder),
    ``support`` (line-aligned files as ``pairs``, held out as the domain "support"), ``ud-pud`` (a
    CoNLL-U file with ``# text_en``) or ``xquad`` (the folder of ``xquad.de.json`` and
    ``xquad.en.json``), all ``model.data.general``, or ``debian-reference`` (the folder of
    ``NAME.de.html`` + ``NAME.en.html`` pages) or ``mallard`` (a help root holding ``C/`` and
    ``de/``), both ``model.data.manuals``.  ``WEIGHT`` (default 1) is how often each
    pair is seen per epoch on average: 2 doubles a corpus, 0.1 shows a fresh random tenth of it
    each epoch.
    """

    path: str
    kind: str = "pairs"
    weight: float = 1.0

    @classmethod
    def parse(cls, text: str) -> CorpusSpec:
        kind, path, weight = "pairs", text, 1.0
        prefix, colon, rest = text.partition(":")
        if colon and prefix in CORPUS_KINDS:
            kind, path = prefix, rest
        head, at, tail = path.rpartition("@")
        if at:
            try:
                weight = float(tail)
            except ValueError:
                raise ValueError(f"corpus weight must be a number, got {tail!r} in {text!r}") from None
            path = head
        if not path:
            raise ValueError(f"corpus path is empty in {text!r}; expected [KIND:]PATH[@WEIGHT]")
        if not (0 < weight <= 100):
            raise ValueError(f"corpus weight must be in (0, 100], got {weight!r} in {text!r}")
        return cls(path, kind, weight)

    def read(self) -> list[Pair]:
        """The corpus's pairs, uncleaned."""
        if self.kind in ("pairs", "support"):
            return read_pairs(self.path)
        if self.kind == "bconstrast":
            return read_bconstrast(self.path)
        if self.kind == "ud-pud":
            return read_ud_pud(self.path)
        if self.kind == "xquad":
            return read_xquad(self.path)
        if self.kind == "gettext":
            return read_gettext(self.path)
        if self.kind == "freedict":
            return read_freedict(self.path)
        if self.kind == "mozilla":
            return read_mozilla(self.path)
        if self.kind == "libreoffice-help":
            return read_help(self.path)
        if self.kind == "debian-reference":
            return read_debian_reference(self.path)
        if self.kind == "mallard":
            return read_mallard(self.path)
        return read_ding(self.path, self.kind.removeprefix("ding-"))

    def own_held_out(self) -> tuple[list[Pair], list[Pair]] | None:
        """The corpus's own published dev and test pairs, uncleaned, where it has them (held out
        instead of a split of its training pairs, so figures compare with the published ones)."""
        if self.kind == "bconstrast":
            return held_out_bconstrast(self.path)
        return None

    @property
    def domain(self) -> str | None:
        """The domain whose dev and test pairs are held out of this corpus ("ui", "help", "ding"), if any."""
        return HELD_OUT_DOMAINS.get(self.kind)

    def __str__(self) -> str:
        kind = "" if self.kind == "pairs" else f"{self.kind}:"
        return f"{kind}{self.path}" + ("" if self.weight == 1 else f"@{self.weight:g}")
