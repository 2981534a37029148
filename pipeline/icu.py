"""ICU MessageFormat: a message's plural and select structure kept, its texts translated.

    Sie haben {count, plural, one {# Datei} other {# Dateien}} gelöscht.
 -> You have deleted {count, plural, one {# file} other {# files}}.

A message with ``plural``, ``select`` or ``selectordinal`` arguments is cut into texts the model
can read: the message itself with each such argument replaced by a directive (``{__c0}``, which
the pipeline protects like any ``{name}``, so the sentence around it is translated whole), and the
message of every option, recursively, with ``#`` (the number, in plural options) as ``{__n}``.
All of them are translated in one call; the translations are put back into the structure:
argument names, keywords, selectors (``one``, ``=0``, ``male``), ``offset:`` and spacing as
written. Simple arguments (``{name}``, ``{n, number}``) stay in their texts as directives.
Apostrophe quoting (``'{'``, ``''``) is respected when finding the structure. Texts without such
arguments, or that do not parse as ICU (unbalanced braces), are translated as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

COMPLEX = ("plural", "select", "selectordinal")
NUMBER = "{__n}"
_HEAD = re.compile(r"\s*([A-Za-z_][\w]*|[0-9]+)\s*,\s*(plural|selectordinal|select)\s*,")
_SELECTOR = re.compile(r"\s*(offset:\s*[0-9]+\s*)?(=?-?[\w]+)\s*")


@dataclass
class Choice:
    head: str                   # "count, plural," as written
    offset: str                 # "offset:1 " as written, or ""
    options: list[tuple[str, "Message"]] = field(default_factory=list)  # (selector with spacing, message)
    tail: str = ""              # spacing before the closing brace
    plural: bool = True


@dataclass
class Message:
    parts: list[str | Choice] = field(default_factory=list)


class _NotIcu(ValueError):
    pass


def _skip_quoted(text: str, i: int) -> int:
    """Past an apostrophe-quoted stretch starting at text[i] == "'" (ICU: '' is one apostrophe,
    a quote opens only before { } # or |)."""
    if i + 1 < len(text) and text[i + 1] == "'":
        return i + 2
    if i + 1 < len(text) and text[i + 1] in "{}#|":
        end = text.find("'", i + 1)
        return len(text) if end < 0 else end + 1
    return i + 1


def _parse_message(text: str, i: int, depth: int) -> tuple[Message, int]:
    """The message from text[i] to its closing brace (depth > 0) or the end; returns the index
    of that brace (or len(text))."""
    message, start = Message(), i
    while i < len(text):
        ch = text[i]
        if ch == "'":
            i = _skip_quoted(text, i)
        elif ch == "}":
            if depth == 0:
                raise _NotIcu("unbalanced }")
            break
        elif ch == "{":
            head = _HEAD.match(text, i + 1)
            if head is None:  # a simple argument: part of the text
                i = _matching(text, i) + 1
                continue
            if i > start:
                message.parts.append(text[start:i])
            choice, i = _parse_choice(text, head, depth)
            message.parts.append(choice)
            start = i
        else:
            i += 1
    else:
        if depth > 0:
            raise _NotIcu("unclosed {")
    if i > start:
        message.parts.append(text[start:i])
    return message, i


def _matching(text: str, i: int) -> int:
    level = 0
    while i < len(text):
        if text[i] == "'":
            i = _skip_quoted(text, i)
            continue
        level += {"{": 1, "}": -1}.get(text[i], 0)
        if level == 0:
            return i
        i += 1
    raise _NotIcu("unclosed {")


def _parse_choice(text: str, head: re.Match, depth: int) -> tuple[Choice, int]:
    """The argument whose head matched after "{"; returns it and the index after its "}"."""
    choice = Choice(head=head.group(0), offset="", plural=head.group(2) != "select")
    i = head.end()
    while True:
        selector = _SELECTOR.match(text, i)
        if text[i:].lstrip().startswith("}"):
            close = text.index("}", i)
            choice.tail = text[i:close]
            return choice, close + 1
        if selector is None or selector.end() >= len(text) or text[selector.end()] != "{":
            raise _NotIcu("option without a message")
        if selector.group(1):
            if choice.options or choice.offset:
                raise _NotIcu("offset after an option")
            choice.offset = text[i:i + len(selector.group(0)) - len(selector.group(0).lstrip())] + selector.group(1)
            i += len(choice.offset)
            continue
        option, close = _parse_message(text, selector.end() + 1, depth + 1)
        choice.options.append((selector.group(0), option))
        i = close + 1


def parse(text: str) -> Message | None:
    """The message's structure when it has plural/select arguments and parses; else None."""
    if "{" not in text:
        return None
    try:
        message, _ = _parse_message(text, 0, 0)
    except (_NotIcu, ValueError):
        return None
    return message if any(isinstance(p, Choice) for p in message.parts) else None


def _units(message: Message, in_plural: bool, out: list[str]) -> list[tuple[int, list]]:
    """Append the texts to translate of ``message`` and its options to ``out``; returns how to
    rebuild it: [(index in out, [(token, Choice, [option rebuilds])...])]."""
    text, choices = [], []
    for part in message.parts:
        if isinstance(part, Choice):
            token = "{__c%d}" % len(choices)
            text.append(token)
            choices.append((token, part, [_units(option, part.plural, out) for _, option in part.options]))
        else:
            text.append(part.replace("#", NUMBER) if in_plural else part)
    out.append("".join(text))
    return [(len(out) - 1, choices)]


def _rebuild(plan: list, done: list[str], in_plural: bool) -> str:
    (index, choices), = plan
    text = done[index]
    for token, choice, options in choices:
        inner = "".join(selector + "{" + _rebuild(option, done, choice.plural) + "}"
                        for (selector, _), option in zip(choice.options, options))
        rebuilt = "{" + choice.head + choice.offset + inner + choice.tail + "}"
        text = text.replace(token, rebuilt, 1) if token in text else f"{text} {rebuilt}".strip()
    return text.replace(NUMBER, "#") if in_plural else text


def translate_messages(texts: list[str], translate: Callable[[list[str]], list[str]]) -> list[str]:
    """``translate(texts)``, with ICU plural/select messages translated by their parts (one call)."""
    units: list[str] = []
    plans: list[list | int] = []   # per text: a message's rebuild plan, or a plain text's unit index
    for text in texts:
        message = parse(text)
        if message is None:
            units.append(text)
            plans.append(len(units) - 1)
        else:
            plans.append(_units(message, False, units))
    done = translate(units) if units else []
    inner = {i for plan in plans if not isinstance(plan, int) for i, _ in _flatten(plan)}
    done = [_fit_case(units[i], text) if i in inner else text for i, text in enumerate(done)]
    return [done[plan] if isinstance(plan, int) else _rebuild(plan, done, False) for plan in plans]


def _fit_case(source: str, translation: str) -> str:
    """A part of a message that starts in lower case ("{n, plural, one {ein Foto} ...") is inside
    a sentence: its translation must not start a sentence ("A photo" -> "a photo"); "I" and words
    in capitals stay."""
    first = re.search(r"[^\W\d_]", source)
    word = re.match(r"(\W*)([^\W\d_])([^\W\d_]*)", translation)
    if first is None or not first.group().islower() or word is None:
        return translation
    lead, initial, rest = word.groups()
    if not initial.isupper() or (not rest and initial == "I") or (rest and not rest.islower()) \
            or translation.startswith(("I ", "I'")):
        return translation
    return translation[:len(lead)] + initial.lower() + translation[len(lead) + 1:]


def _flatten(plan: list):
    """(unit index, choices) of a message's plan and of all its options' plans."""
    for index, choices in plan:
        yield index, choices
        for _, _, options in choices:
            for option in options:
                yield from _flatten(option)
