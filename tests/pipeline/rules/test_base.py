"""pipeline/rules/base.py: the rule contract's hooks, their defaults and the rules that override
them; the pipeline's second try, respelling and signatures go through them alone."""

from __future__ import annotations

import pytest

from pipeline.rules import ENGLISH_RULES, RULES, rules_for
from pipeline.rules.base import Context, Finder, Rule
from pipeline.spans import mask


def hooked(hook: str, source: str = "de") -> list[str]:
    """The rules of a source language that override ``hook``."""
    return [rule.name for rule in rules_for(source) if getattr(type(rule), hook) is not getattr(Rule, hook)]


def test_every_rule_keeps_the_contract():
    assert all(isinstance(rule, Rule) for rule in RULES + ENGLISH_RULES)


@pytest.mark.parametrize(("hook", "source", "names"), [
    ("first_try_checks", "de", ["years", "measures"]),
    ("first_try_kept", "de", ["years", "measures"]),
    ("first_try_checks", "en", ["german_notation", "english_titles"]),
    ("first_try_kept", "en", ["german_notation", "english_titles"]),
    ("respell", "de", ["abbreviations"]),
    ("signature", "de", ["letters"]),
    ("respell", "en", []),
    ("signature", "en", []),
])
def test_the_rules_that_take_part_in_each_hook(hook, source, names):
    assert hooked(hook, source) == names


def test_the_defaults_do_nothing():
    rule = Finder("plain", lambda text, spans: list(spans))
    masked = mask("bzw. morgen", [])
    assert rule.find("bzw. morgen", [], Context()) == []
    assert rule.repair(masked) is None and rule.respell(masked) is masked
    assert rule.first_try_checks("fünf Kilometer im Jahr 1990") is False
    assert rule.first_try_kept("fünf Kilometer", "") is True
    assert rule.signature("Viele Grüße\nAnna", 12, 16) is None
    with pytest.raises(NotImplementedError, match="^rule 'bare' finds nothing$"):
        type("Bare", (Rule,), {"name": "bare"})().find("x", [], Context())


@pytest.mark.parametrize(("source", "text", "translation", "checks", "kept"), [
    ("de", "Sie lief fünf Kilometer.", "She ran five kilometers.", True, True),
    ("de", "Sie lief fünf Kilometer.", "She ran three miles.", True, False),
    ("de", "Im Jahr 1989 fiel die Mauer.", "In 1989 the wall fell.", True, True),
    ("de", "Im Jahr 1989 fiel die Mauer.", "In 1998 the wall fell.", True, False),
    ("de", "Das ist gut.", "That is good.", False, True),
    ("en", "See you on June 14.", "Bis zum 14. Juni.", True, True),
    ("en", "See you on June 14.", "Bis Juni 14.", True, False),
    ("en", "Mr. Smith is here.", "Herr Smith ist hier.", True, True),
    ("en", "It is good.", "Es ist gut.", False, True),
])
def test_the_rules_of_a_source_language_check_a_first_try(source, text, translation, checks, kept):
    rules = rules_for(source)
    assert any(rule.first_try_checks(text) for rule in rules) is checks
    assert all(rule.first_try_kept(text, translation) for rule in rules) is kept


def test_abbreviations_respell_and_letters_sign():
    (abbreviations,) = [rule for rule in RULES if rule.name == "abbreviations"]
    assert abbreviations.respell(mask("Tee bzw. Kaffee", [])).text == "Tee oder Kaffee"
    (letters,) = [rule for rule in RULES if rule.name == "letters"]
    text = "Viele Grüße\nAnna Schmidt"
    assert letters.signature(text, 12, len(text)) is not None
    assert letters.signature("Das ist gut.", 0, 12) is None
