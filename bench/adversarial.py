"""Adversarial text families of 5,000 characters: inputs shaped to make a regular expression
backtrack or a loop go quadratic (runs of one class, alternations of two, a near-match with a bad
last character, long whitespace, nested brackets, repeated directives, camel-case runs).
``tests/test_regex_guard.py`` runs every compiled pattern of ``pipeline/`` and ``app/`` on them,
``tests/pipeline/test_budget.py`` and ``bench/pipeline_budget.py`` the whole pipeline."""

from __future__ import annotations

LENGTH = 5000


def _cycle(unit: str, length: int = LENGTH) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def families(length: int = LENGTH) -> dict[str, str]:
    f: dict[str, str] = {}
    # ... and digits the vocabulary lacks (superscript, full-width, mathematical): each is several
    # byte pieces, so that 1,500 of them are thousands of pieces the model cannot read at once
    for c in "aA1 .,-_:/\\@#%&*~'\"<[({⦅€ä\t\n\u202e¹１𝟙":
        f[f"run {c!r}"] = c * length
    for unit in ("Ab", "aB", "AbC", "ABc", "A1", "1 ", "1:", "1.", "1,", "1-", "1/", "-1", "+1", "a.", "a-",
                 "a/", "a_", "a:", "a@", "a ", "A ", "ab.", "a.b", "%s", "\u202ea", "Dr. ", "z. ", "<b>",
                 "&a", "#a", "@a", "1 €", "Ab-", "ÄÖ", "Öl ", "a.b@", "http://a", "www.a", "{0}", "%(name)s",
                 "$(ARG1)", "⦅N1⦆", "12.03.", "1.000,", "+49 ", "Uhr ", "Nr. ", "(0) ", "[a]", "<a href=",
                 "` ", "'a", "„a“", "AbCdE", "a1b2", "x-", "-x-", "../", "C:\\a", "１２３４５６７８９０ "):
        f[f"alternation {unit!r}"] = _cycle(unit, length)
    half = length // 2
    f.update({
        "near-match camel case": "Ab" * (half - 1) + "A-",
        "near-match digits": "1" * (length - 1) + "x",
        "near-match superscript digits": "¹" * (length - 1) + "x",
        "near-match full-width digits": _cycle("１２３４５６７８９０ ", length - 1) + "x",
        "near-match e-mail": "a@" + "b." * (half - 2) + "b1",
        "near-match url": "http://" + "a" * (length - 8) + "\x00",
        "near-match path": "/a" * (half - 1) + "/-",
        "near-match date": _cycle("1.1.", length - 1) + "x",
        "near-match command": "npm " + _cycle("a ", length - 5) + "-",
        "near-match identifier": "a_" * (half - 1) + "__",
        "whitespace": _cycle(" \n", length),
        "whitespace between words": "a" + " " * (length - 2) + "b",
        "nested brackets": "(" * half + ")" * half,
        "nested square brackets": "[" * half + "]" * half,
        "nested braces": "{" * half + "}" * half,
        "nested tags": "<b>" * (length // 7) + "</b>" * (length // 7) + "a" * (length % 7),
        "nested placeholders": "⦅" * half + "⦆" * half,
        "camel-case run": _cycle("AbCd", length),
    })
    return f
