"""What the budget tests share: the messages of the limits, and a spy on a paragraph scanner."""

from __future__ import annotations

from types import ModuleType


def over(extension: str, limit: int = 20_000) -> str:
    return (f"^the \\{extension} has more than {limit} characters of text, over the limit of {limit} "
            "characters per file$")


def too_many_paragraphs(extension: str, limit: int) -> str:
    return f"^the \\{extension} has more than {limit} paragraphs \\(empty ones count too\\), over the limit of {limit}$"


def spy_on(monkeypatch, module: ModuleType, name: str = "scan") -> list[object]:
    """The elements ``module.<name>`` (a format's paragraph scanner) was called with."""
    seen: list[object] = []
    original = getattr(module, name)

    def spy(element):
        seen.append(element)
        return original(element)

    monkeypatch.setattr(module, name, spy)
    return seen
