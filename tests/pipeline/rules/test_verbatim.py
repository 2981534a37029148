"""The verbatim rule of an English source: a tool's name is often an English word
(pipeline.rules.verbatim.ENGLISH_RULE)."""

from __future__ import annotations

import pytest

from pipeline.rules.base import Context
from pipeline.rules.verbatim import ENGLISH_RULE, RULE


@pytest.mark.parametrize("text, english, german", [
    ("The cat is sleeping.", [], [("command", "cat is sleeping")]),           # words, not a command
    ("Just find out what happened.", [], []),
    ("Run cat notes.txt now.", [("command", "cat notes.txt")], [("command", "cat notes.txt now")]),
    ("Use git commit -m to commit.", [("command", "git commit -m")], [("command", "git commit -m to commit")]),
    ("Type sudo apt update.", [("command", "sudo apt update")], [("command", "sudo apt update")]),
    ("Then run ls -la /tmp and check.", [("command", "ls -la /tmp")], [("command", "ls -la /tmp and check")]),
    ("Visit https://example.com today.", [("url", "https://example.com")], [("url", "https://example.com")]),
])
def test_an_english_source_s_commands_need_an_argument_that_reads_as_code(text, english, german):
    assert [(s.kind, s.text) for s in ENGLISH_RULE.find(text, [], Context())] == english
    assert [(s.kind, s.text) for s in RULE.find(text, [], Context())] == german   # a German source's, as before
