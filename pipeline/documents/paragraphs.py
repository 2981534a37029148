"""A paragraph as one HTML fragment: what .docx, .odt/.odp and .pptx share.

Each paragraph is translated as one HTML fragment built from its runs, so that the model reads
whole sentences and each run's formatting follows its words through the markup pipeline's tag
projection (``pipeline.markup``):

  <w:r>Die Katze </w:r><w:r><w:b/>schläft</w:r><w:r>.</w:r>
  -> Die Katze <span data-r="1">schläft</span>.
  -> The cat is <span data-r="1">sleeping</span>.

A format scans its paragraph elements into ``Paragraph``s (``counted``: each one counted in the
file's budget), each with its fragment (``html``) and what the fragment's tags stand for: runs
(``<span data-r>``), containers such as links (``<a data-c>``), line breaks (``<br data-b>``: the
lines on either side are translated apart) and points (``<img data-p>``: a tab ``data-t``, an
inline object ``data-i``, a stretch kept as written ``data-a``). The translated fragment comes
back as ``tokens``, in output order and spaced around the points as the source was, from which
the format rebuilds its paragraph. ``dominant`` is the run whose formatting text outside every
span takes. A span stands for a formatting that stands out (``Paragraph.fragment``): runs with
the dominant run's formatting are no spans, and runs of one formatting side by side are one, so
that the markup pipeline places bold on a paragraph as it places <b> on a web page, and where it
finds no credible place for it puts it around the whole sentence, the rest of the paragraph as
it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser
from typing import Any

from .base import Budget


@dataclass
class Token:
    """One piece of a translated fragment, in output order."""

    kind: str                 # text, tab, br, atom or open (a container starts)
    container: int | None
    run: int | None
    value: Any = None         # text, or the index of a break or an atom
    point: int | None = None  # tabs, atoms and breaks inside links: their data-p


@dataclass
class Paragraph:
    """A paragraph element scanned into its HTML fragment and what the fragment's tags stand for."""

    element: Any
    runs: list[Any] = field(default_factory=list)                # data-r: source text runs
    run_scope: list[int | None] = field(default_factory=list)    # the container of each run
    run_chars: list[int] = field(default_factory=list)
    breaks: list[tuple[Any, int | None]] = field(default_factory=list)  # data-b: (the break, its run)
    inline: list[Any] = field(default_factory=list)              # data-i: pictures ... in a run
    atoms: list[list[Any]] = field(default_factory=list)         # data-a: stretches kept as written
    containers: list[Any] = field(default_factory=list)          # data-c
    points: list[int] = field(default_factory=list)              # data-p: offset in the text
    html: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    chars: int = 0
    in_atom: bool = False
    field_depth: int = 0

    def emit(self, html: str) -> None:
        self.html.append(html)
        self.in_atom = False

    def point(self, attribute: str, separator: bool) -> None:
        # A separator (tab, line break) also separates words for the model: a space follows it
        # in the fragment, and the spaces around it are made as in the source afterwards.
        self.emit(f'<img {attribute} data-p="{len(self.points)}">' + (" " if separator else ""))
        self.points.append(self.chars)

    def atom(self, element: Any) -> None:
        if self.in_atom:   # one point for a whole stretch: a field's parts stay together, in order
            self.atoms[-1].append(element)
            return
        self.point(f'data-a="{len(self.atoms)}"', separator=False)
        self.atoms.append([element])
        self.in_atom = True

    def add_text(self, text: str) -> None:
        self.run_chars[-1] += len(text)
        self.chars += len(text)
        self.text.append(text)
        self.emit(escape(text, quote=False))

    def dominant(self, scope: int | None) -> int | None:
        """The run with the most text in ``scope`` (a container, or None: the paragraph)."""
        runs = [i for i, s in enumerate(self.run_scope) if s == scope and self.run_chars[i]]
        return max(runs, key=lambda i: self.run_chars[i]) if runs else None

    def fragment(self, formatting: Callable[[Any], Any]) -> str:
        """The HTML fragment to translate, its spans standing for formatting (``formatting``: a run's,
        comparable, as the format rebuilds runs from it). A run formatted as the dominant run of its
        scope is no span: text outside every span takes that formatting anyway, and a span around
        the words a paragraph mostly has would be placed and checked as if it stood out. Runs of
        one formatting side by side (a word processor splits runs for its own reasons) are one
        span, the first run's."""
        html, keys = "".join(self.html), [formatting(run) for run in self.runs]
        out: list[str] = []
        position, last = 0, None        # last: the kept span that ends at ``position``
        for match in _SPAN.finditer(html):
            run, inner, between = int(match[1]), match[2], html[position:match.start()]
            dominant = self.dominant(self.run_scope[run])
            if dominant is not None and keys[run] == keys[dominant]:
                out.append(between + inner)
                last = None
            elif last is not None and not between and keys[last] == keys[run] \
                    and self.run_scope[last] == self.run_scope[run]:
                out[-1] = out[-1][:-len("</span>")] + inner + "</span>"
            else:
                out.append(f'{between}<span data-r="{run}">{inner}</span>')
                last = run
            position = match.end()
        out.append(html[position:])
        return "".join(out)


# A run's span in a scanned fragment: spans never nest there, and their text is escaped.
_SPAN = re.compile(r'<span data-r="([0-9]+)">(.*?)</span>', re.DOTALL)


def counted(elements: Any, scan: Callable[[Any], Paragraph | None], budget: Budget) -> list[Paragraph]:
    """The paragraphs with text of the paragraph ``elements`` (an iterator: taken one at a time),
    each counted in ``budget`` before it is scanned and its text counted after."""
    paragraphs = []
    for element in elements:
        budget.paragraph()
        para = scan(element)
        if para is not None:
            budget.add(para.chars)
            paragraphs.append(para)
    return paragraphs


class _Reader(HTMLParser):
    """A translated fragment as tokens, in output order. Spans and links come back nested where the
    markup pipeline put a run or link around its whole sentence (``placement._take_in``): the
    innermost one owns the text, and the enclosing one owns it again after the inner one ends."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.containers: list[int] = []
        self.runs: list[int] = []
        self.tokens: list[Token] = []

    @property
    def container(self) -> int | None:
        return self.containers[-1] if self.containers else None

    @property
    def run(self) -> int | None:
        return self.runs[-1] if self.runs else None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        point = int(a["data-p"]) if "data-p" in a else None
        if tag == "span":
            self.runs.append(int(a["data-r"]))
        elif tag == "a":
            self.containers.append(int(a["data-c"]))
            self.tokens.append(Token("open", self.container, None))
        elif "data-a" in a:
            self.tokens.append(Token("atom", self.container, None, int(a["data-a"]), point))
        elif "data-t" in a:
            self.tokens.append(Token("tab", self.container, self.run, None, point))
        elif "data-b" in a:
            self.tokens.append(Token("br", self.container, self.run, int(a["data-b"]), point))
        elif "data-i" in a:
            self.tokens.append(Token("inline", self.container, self.run, int(a["data-i"]), point))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "span" and self.runs:
            self.runs.pop()
        elif tag == "a" and self.containers:
            self.containers.pop()

    def handle_data(self, data):
        self.tokens.append(Token("text", self.container, self.run, data))


def _spacing(para: Paragraph, tokens: list[Token]) -> None:
    """The source's leading and trailing spaces, and its spacing around points, in the output."""
    plain = "".join(para.text)
    texts = [t for t in tokens if t.kind == "text" and t.value.strip()]
    if texts:
        texts[0].value = plain[:len(plain) - len(plain.lstrip())] + texts[0].value.lstrip()
        texts[-1].value = texts[-1].value.rstrip() + plain[len(plain.rstrip()):]
    for i, token in enumerate(tokens):
        if token.point is None:
            continue
        at = para.points[token.point]
        if i > 0 and tokens[i - 1].kind == "text" and at > 0:
            before = tokens[i - 1]
            before.value = before.value.rstrip(" ") + (" " if plain[at - 1].isspace() else "")
        if i + 1 < len(tokens) and tokens[i + 1].kind == "text" and at < len(plain):
            after = tokens[i + 1]
            after.value = (" " if plain[at].isspace() else "") + after.value.lstrip(" ")


def read_fragment(para: Paragraph, translated: str) -> list[Token]:
    """The translated fragment of ``para`` as tokens, spaced as the source was."""
    reader = _Reader()
    reader.feed(translated)
    reader.close()
    _spacing(para, reader.tokens)
    return reader.tokens

