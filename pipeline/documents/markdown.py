""".md, Markdown files: text and headings translated; code, links' targets, images and HTML as written.

markdown-it-py (CommonMark, with GFM tables and strikethrough) finds the blocks. Only the inline
text of paragraphs, headings, list items, quotes and table cells is translated; everything else
(fenced and indented code, HTML blocks, YAML front matter, link reference definitions, thematic breaks,
list markers, quote markers, indentation, table rules) stays byte for byte.

A block's inline text goes to the model as one HTML fragment, so that a sentence over several
lines is read whole and its markup follows its words (``pipeline.markup``): emphasis, strong and
strikethrough become ``<md-e data-m=K>``, a link ``<md-a data-m=K>`` around its text, inline code
``<code data-m=K>`` (kept verbatim by the markup pipeline), a hard break ``<br data-m=K>`` (the
lines on either side are translated apart), inline HTML stays HTML, and images and autolinks are
``⦅mK⦆`` (a placeholder lookalike, which the pipeline carries over
as written: ``pipeline.spans``). ``K`` indexes the markup as written ("**" or "__", the link's
target and title), which replaces them again afterwards. The translation is cut back into as many lines
as the block had (balanced at spaces outside the markup), each line keeping its prefix ("> ",
indentation) and what follows its text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

from ..language_pair import DE_EN, LanguagePair
from ..segment import lines_like
from .base import BOM, Budget, Document, DocumentError, Unit, refuse_control, utf8

# markdown-it stops at 20 levels of nesting (its guard against deep recursion) and drops what lies
# deeper without a word: text in 20 nested quotes came back untranslated. Ours goes deeper and
# refuses what still lies beyond it (a 400 naming the line), never leaves it silently.
MAX_NESTING = 50
_CONTAINERS = ("blockquote_open", "list_item_open")   # the tokens whose content is parsed a level deeper

_OURS = re.compile(r'<(/?)(md-e|md-a|code|br)(?: data-m="(\d+)")?>')
_ATOM = re.compile(r"⦅[mM](\d+)⦆")  # the pipeline keeps it as written; any case, to be safe
_RAW_TAG = re.compile(r"<[^<>]*>")
_UNBREAKABLE = re.compile(r"\]\([^()]*\)|`+[^`]*`+")   # a link's target and title; code
_SPECIAL = re.compile(r"([\\`*\[\]])|(?<!\w)_|_(?!\w)")


@dataclass
class _Block:
    line: int               # the first source line of its text
    lines: int              # how many source lines its text has
    fragment: str           # the inline text as an HTML fragment
    markup: list[tuple[str, str]]  # per data-m index: (opening, closing) as written; atoms: (source, "")
    content: list[str]      # its text's lines as in the source


def _escape_text(text: str) -> str:
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def _title(attrs: dict) -> str:
    title = attrs.get("title")
    return f' "{title}"' if title else ""


def _fragment(children) -> tuple[str, list[tuple[str, str]]]:
    """The inline tokens as an HTML fragment, and the markup as written per index."""
    out, markup = [], []

    def mark(opening: str, closing: str = "") -> int:
        markup.append((opening, closing))
        return len(markup) - 1

    inside_autolink = False
    for token in children:
        kind = token.type
        if inside_autolink:  # its text is written by the atom
            inside_autolink = kind != "link_close"
        elif kind == "text":
            out.append(html.escape(token.content, quote=False))
        elif kind == "softbreak":
            out.append(" ")
        elif kind in ("strong_open", "em_open", "s_open"):
            out.append(f'<md-e data-m="{mark(token.markup, token.markup)}">')
        elif kind in ("strong_close", "em_close", "s_close"):
            out.append("</md-e>")
        elif kind == "link_open" and token.markup == "autolink":
            out.append(f"⦅m{mark('<' + _autolink(token) + '>')}⦆")
            inside_autolink = True
        elif kind == "link_open":
            out.append(f'<md-a data-m="{mark("[", "](" + token.attrs["href"] + _title(token.attrs) + ")")}">')
        elif kind == "link_close":
            out.append("</md-a>")
        elif kind == "code_inline":
            pad = " " if token.content.startswith("`") or token.content.endswith("`") else ""
            index = mark(token.markup + pad, pad + token.markup)
            out.append(f'<code data-m="{index}">{html.escape(token.content, quote=False)}</code>')
        elif kind == "image":
            out.append(f"⦅m{mark('![' + token.content + '](' + token.attrs['src'] + _title(token.attrs) + ')')}⦆")
        elif kind == "hardbreak":  # a block boundary for the markup pipeline: lines translated apart
            out.append(f'<br data-m="{mark(HARD_BREAK)}">')
        elif kind == "html_inline":
            out.append(token.content)   # HTML already: the markup pipeline keeps it as written
    return "".join(out), markup


HARD_BREAK = "\\\n"


def _autolink(token) -> str:
    href = token.attrs["href"]
    return href.removeprefix("mailto:") if href.startswith("mailto:") and "mailto:" not in token.content else href


def _text(segment: str, markup: list[tuple[str, str]]) -> str:
    """Translated text between our tags: raw HTML as it is, atoms as written, text unescaped
    from HTML and escaped for Markdown."""
    out, position = [], 0
    for match in re.finditer(f"{_RAW_TAG.pattern}|{_ATOM.pattern}", segment):
        out.append(_escape_text(html.unescape(segment[position:match.start()])))
        atom = _ATOM.fullmatch(match.group())
        out.append(markup[int(atom.group(1))][0] if atom else match.group())
        position = match.end()
    out.append(_escape_text(html.unescape(segment[position:])))
    return "".join(out)


def _markdown(fragment: str, markup: list[tuple[str, str]]) -> str:
    """The translated fragment back in Markdown, with the markup as written."""
    out, position, stack = [], 0, []
    while True:
        match = _OURS.search(fragment, position)
        if match is None:
            break
        out.append(_text(fragment[position:match.start()], markup))
        closing, name, index = match.groups()
        position = match.end()
        if closing:
            if stack:
                out.append(stack.pop())
            continue
        opening, end = markup[int(index)] if index is not None else ("", "")
        out.append(opening)
        if name == "br":
            continue
        if name == "code":  # verbatim up to its end tag
            end_tag = fragment.find("</code>", position)
            end_tag = len(fragment) if end_tag < 0 else end_tag
            out += [html.unescape(fragment[position:end_tag]), end]
            position = end_tag + len("</code>")
        else:
            stack.append(end)
    out.append(_text(fragment[position:], markup))
    return "".join(out) + "".join(reversed(stack))


def _balanced(text: str, segments: list[int]) -> list[str]:
    """``text`` cut into lines like its source: the hard breaks end lines, and each stretch
    between them is balanced at spaces (outside links and HTML, ``segment.lines_like``) into
    as many lines as it had (``segments``), or one where the breaks moved."""
    parts = [part.strip() for part in text.split(HARD_BREAK)]
    counts = segments if len(segments) == len(parts) else [1] * len(parts)
    lines = []
    for k, (part, count) in enumerate(zip(parts, counts)):
        cut = lines_like(part, count, _UNBREAKABLE).split("\n")
        if k < len(parts) - 1:
            cut[-1] += "\\"
        lines += cut
    return lines


def _segments(content: list[str]) -> list[int]:
    """Lines of the text between its hard breaks (a line ending in two spaces or a backslash)."""
    counts, current = [], 0
    for k, line in enumerate(content):
        current += 1
        if k < len(content) - 1 and (line.endswith("  ") or line.endswith("\\")):
            counts.append(current)
            current = 0
    return counts + [current]


class MarkdownDocument(Document):
    """A .md: the inline text of each block, an HTML fragment with its markup as tags."""

    def __init__(self, data: bytes, budget: Budget):
        text = utf8(data)
        self.bom = BOM if text.startswith(BOM) else ""
        refuse_control(text)
        self.lines = text[len(self.bom):].split("\n")
        parser = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])
        self.blocks: list[_Block] = []
        tokens = parser.parse(_without_front_matter(self.lines))
        for token in tokens:
            if token.type in _CONTAINERS and token.level + 1 >= MAX_NESTING:
                raise DocumentError(f"line {token.map[0] + 1} nests quotes or lists more than {MAX_NESTING - 1} levels "
                                    "deep: its text would be left untranslated")
        for token in tokens:
            if token.type != "inline" or token.map is None or not any(c.isalpha() for c in token.content):
                continue
            fragment, markup = _fragment(token.children or [])
            content = token.content.split("\n")
            self.blocks.append(_Block(token.map[0], len(content), fragment, markup, content))
        self.chars = sum(len(" ".join(block.content)) for block in self.blocks)
        budget.add(self.chars)

    def units(self) -> list[Unit]:
        return [Unit(block.fragment, html=True) for block in self.blocks]

    def write(self, translations: list[str], languages: LanguagePair = DE_EN) -> bytes:
        lines = list(self.lines)
        searched: dict[int, int] = {}          # table rows hold several cells: search on
        removed: set[int] = set()
        for block, translated in zip(self.blocks, translations, strict=True):
            new = _balanced(_markdown(translated, block.markup), _segments(block.content))
            for k, old in enumerate(block.content):
                index = block.line + k
                line = lines[index]
                start = line.find(old.rstrip(), searched.get(index, 0)) if old.strip() else -1
                if start < 0:
                    continue
                # The whole of the old text, trailing spaces too (a hard break the new text writes itself).
                end = start + (len(old) if line.startswith(old, start) else len(old.rstrip()))
                if k < len(new):
                    lines[index] = line[:start] + new[k] + line[end:]
                    searched[index] = start + len(new[k])
                else:
                    removed.add(index)
        return (self.bom + "\n".join(line for i, line in enumerate(lines) if i not in removed)).encode("utf-8")


def _without_front_matter(lines: list[str]) -> str:
    """The text for the parser, a YAML front matter block (``---`` ... ``---`` at the start, as
    static site generators read it) blanked, so that it stays as written and lines keep their
    numbers."""
    if lines and lines[0].rstrip() == "---":
        for k in range(1, len(lines)):
            if lines[k].rstrip() in ("---", "..."):
                return "\n" * k + "\n" + "\n".join(lines[k + 1:])
    return "\n".join(lines)
