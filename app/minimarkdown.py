"""A small, safe Markdown subset for MODEL_CARD.md (no extra dependency for one page).

Supported: ATX headings, paragraphs, bullet and numbered lists (nested by indentation), fenced
code, pipe tables, `code`, **bold**, *emphasis* and [links](https://...). Everything is
HTML-escaped first, and only http(s) and relative links become anchors, so the card cannot inject
markup or javascript: URLs.
"""

from __future__ import annotations

import html
import re

from markupsafe import Markup

_HEADING = re.compile(r"(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"( *)([-*+]|\d+[.)])\s+(.*)")  # indent, marker, text
_TABLE_RULE = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _inline(text: str) -> str:
    text = html.escape(text, quote=True)
    # Code spans first, shielded from the other rules by placeholders.
    spans: list[str] = []

    def keep(match: re.Match) -> str:
        spans.append(f"<code>{match.group(1)}</code>")
        return f"\x00{len(spans) - 1}\x00"

    text = re.sub(r"`([^`]+)`", keep, text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])", r"<em>\1</em>", text)
    text = re.sub(r"\[([^\]]+)\]\(((?:https?://|/|\./|#)[^)\s]*|[\w./-]+)\)", r'<a href="\2">\1</a>', text)
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> str:
    head = "".join(f"<th>{_inline(c)}</th>" for c in _cells(lines[0]))
    rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in _cells(line)) + "</tr>" for line in lines[2:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _list(lines: list[str], i: int) -> tuple[str, int]:
    """The list starting at ``lines[i]`` and the index after it. Items indented deeper than the
    first nest inside the item above them; an indented plain line continues the item above."""
    first = _ITEM.match(lines[i])
    indent, tag = len(first.group(1)), "ol" if first.group(2)[0].isdigit() else "ul"
    items: list[list[str]] = []  # [text, nested lists' html]
    while i < len(lines):
        item = _ITEM.match(lines[i])
        if item and len(item.group(1)) == indent:
            items.append([item.group(3), ""])
            i += 1
        elif item and len(item.group(1)) > indent and items:
            nested, i = _list(lines, i)
            items[-1][1] += nested
        elif not item and lines[i].startswith(" ") and lines[i].strip() and items:
            items[-1][0] += " " + lines[i].strip()
            i += 1
        else:  # a shallower item (the parent's next), or the end of the list
            break
    return f"<{tag}>" + "".join(f"<li>{_inline(text)}{nested}</li>" for text, nested in items) + f"</{tag}>", i


def render(source: str) -> Markup:
    lines = source.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip().startswith("```")), len(lines))
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:end])) + "</code></pre>")
            i = end + 1
        elif _HEADING.match(line):
            hashes, title = _HEADING.match(line).groups()
            level = min(len(hashes) + 1, 6)  # the page already has its <h1>
            out.append(f"<h{level}>{_inline(title)}</h{level}>")
            i += 1
        elif "|" in line and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            end = next((j for j in range(i + 2, len(lines)) if "|" not in lines[j]), len(lines))
            out.append(_table(lines[i:end]))
            i = end
        elif _ITEM.match(line):
            block, i = _list(lines, i)
            out.append(block)
        elif not line.strip():
            i += 1
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not _HEADING.match(lines[i]) \
                    and not lines[i].strip().startswith("```") and not _ITEM.match(lines[i]):
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    return Markup("\n".join(out))
