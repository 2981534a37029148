"""Several training corpora, each given on the command line as ``[KIND:]PATH[@WEIGHT]``, and the
registry of the kinds: adding a kind is its reader's module and one entry in ``KINDS``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from model.data.corpus import Pair, read_pairs
from model.data.ding import read_ding
from model.data.freedict import read_freedict
from model.data.general import held_out_bconstrast, read_bconstrast, read_ud_pud, read_xquad
from model.data.gettext import read_gettext
from model.data.helppages import read_help
from model.data.manuals import read_debian_reference, read_mallard
from model.data.mozilla import read_mozilla


@dataclass(frozen=True)
class CorpusKind:
    """A kind of corpus: its ``name`` (the ``KIND:`` of a spec), ``read``, which reads a PATH's
    pairs uncleaned, ``domain``, the domain whose dev and test pairs train.py holds out of it (None:
    it only trains), and ``held_out``, which reads the corpus's own published dev and test pairs,
    held out instead of a split of its training pairs so that figures compare with the published ones."""

    name: str
    read: Callable[[str], list[Pair]]
    domain: str | None = None
    held_out: Callable[[str], tuple[list[Pair], list[Pair]]] | None = None


# One entry per kind. A spec names its kind by the exact name before its first colon, so no two kinds
# can claim the same spec: the order decides only the default kind (the first) and the order that
# CORPUS_KINDS lists them in. A prefix that is no kind's name is part of the path (``C:/data/x.tsv``
# is a ``pairs`` corpus), so a path that starts with a kind's name and a colon needs ``pairs:``.
# Ding's example sentences are everyday German that is not Tatoeba's, so they are a domain of their
# own to select on ("ding"); its word pairs are not sentences and only train. The general-domain
# corpora (model.data.general): BConTrasT's chats hold out the shared task's own dev and test sets
# ("chat"); the customer-support e-mails a split of their own; UD PUD's and XQuAD's few news and
# Wikipedia sentences only train (newstest serves as their dev, docs/data.md). The manuals
# (model.data.manuals) only train too: a held-out split of each would take a third of its few thousand
# pairs, and "help" already tests the kind.
KINDS: tuple[CorpusKind, ...] = (
    CorpusKind("pairs", read_pairs),   # any format read_pairs reads: the kind of a spec that names none
    CorpusKind("ding-sentences", partial(read_ding, kind="sentences"), domain="ding"),  # model.data.ding
    CorpusKind("ding-words", partial(read_ding, kind="words")),   # the dictionary's word and phrase pairs
    CorpusKind("freedict", read_freedict),   # FreeDict's dictd files
    CorpusKind("gettext", read_gettext, domain="ui"),   # a .mo/.po catalog or a folder of them
    CorpusKind("mozilla", read_mozilla, domain="ui"),   # a language pack beside the program's omni.ja
    CorpusKind("libreoffice-help", read_help, domain="help"),   # the help root holding de/ and en-US/
    CorpusKind("bconstrast", read_bconstrast, domain="chat", held_out=held_out_bconstrast),   # its folder
    CorpusKind("support", read_pairs, domain="support"),   # line-aligned files such as MT4All's
    CorpusKind("ud-pud", read_ud_pud),   # a CoNLL-U file with # text_en
    CorpusKind("xquad", read_xquad),   # the folder of xquad.de.json and xquad.en.json
    CorpusKind("debian-reference", read_debian_reference),   # the folder of NAME.de.html + NAME.en.html
    CorpusKind("mallard", read_mallard),   # a help root holding C/ and de/
)
REGISTRY: dict[str, CorpusKind] = {k.name: k for k in KINDS}
CORPUS_KINDS = tuple(k.name for k in KINDS)
DEFAULT_KIND = KINDS[0].name   # what a spec without a known KIND: reads, and what its str() leaves out


def corpus_kind(name: str) -> CorpusKind:
    """The registered kind called ``name``; ValueError for any other."""
    if name not in REGISTRY:
        raise ValueError(f"kind must be one of {CORPUS_KINDS}, got {name!r}")
    return REGISTRY[name]


@dataclass(frozen=True)
class CorpusSpec:
    """One training corpus as given on the command line: ``[KIND:]PATH[@WEIGHT]``.

    ``KIND`` is one of ``CORPUS_KINDS`` (``KINDS`` says what each reads), ``pairs`` by default.
    ``WEIGHT`` (default 1) is how often each pair is seen per epoch on average: 2 doubles a corpus,
    0.1 shows a fresh random tenth of it each epoch.
    """

    path: str
    kind: str = DEFAULT_KIND
    weight: float = 1.0

    @classmethod
    def parse(cls, text: str) -> CorpusSpec:
        kind, path, weight = DEFAULT_KIND, text, 1.0
        prefix, colon, rest = text.partition(":")
        if colon and prefix in REGISTRY:
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
        return corpus_kind(self.kind).read(self.path)

    def own_held_out(self) -> tuple[list[Pair], list[Pair]] | None:
        """The corpus's own published dev and test pairs, uncleaned, where it has them (held out
        instead of a split of its training pairs, so figures compare with the published ones)."""
        held_out = corpus_kind(self.kind).held_out
        return held_out(self.path) if held_out else None

    @property
    def domain(self) -> str | None:
        """The domain whose dev and test pairs are held out of this corpus ("ui", "help", "ding"), if any."""
        return corpus_kind(self.kind).domain

    def __str__(self) -> str:
        kind = "" if self.kind == DEFAULT_KIND else f"{self.kind}:"
        return f"{kind}{self.path}" + ("" if self.weight == 1 else f"@{self.weight:g}")
