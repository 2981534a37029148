"""The two languages of a translation, and how a translated file names them.

A ``LanguagePair`` is what a translation goes from and to: German into English (``DE_EN``, the
service's direction and every default) or English into German (``EN_DE``, a reverse model's:
``model.network.checkpoint.direction``). Files say what language they are in (a .po header, a
.docx's w:lang, an HTML lang attribute, an EPUB's dc:language); where they name the source
language, in any region ("de", "de-DE", "en_GB"), the translation names the target. A full tag
names the target's usual region, "en-US" or "de-DE": what Word and LibreOffice write for them.
"""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("de", "en")
REGIONS = {"de": "DE", "en": "US"}   # the region of a full tag that names the target


def primary(tag: str | None) -> str:
    """The language of a tag, lower case: "de" for "de", "de-DE", "DE_at"; "" for None."""
    return (tag or "").strip().lower().replace("_", "-").split("-")[0]


@dataclass(frozen=True)
class LanguagePair:
    """``source`` into ``target``: "de" and "en" (the default) or "en" and "de"."""

    source: str = "de"
    target: str = "en"

    def __post_init__(self) -> None:
        if self.source not in LANGUAGES or self.target not in LANGUAGES or self.source == self.target:
            raise ValueError(f"a language pair is de-en or en-de, got {self.source}-{self.target}")

    @classmethod
    def of(cls, direction: str) -> LanguagePair:
        """The pair of a checkpoint's ``direction`` ("de-en" or "en-de")."""
        source, _, target = direction.partition("-")
        return cls(source, target)

    @property
    def direction(self) -> str:
        return f"{self.source}-{self.target}"

    @property
    def region(self) -> str:
        """The target's region in a full tag: "US" for English, "DE" for German."""
        return REGIONS[self.target]

    @property
    def target_tag(self) -> str:
        """The target as a full tag: "en-US" or "de-DE"."""
        return f"{self.target}-{self.region}"

    def names_source(self, tag: str | None) -> bool:
        """Whether a language tag ("de", "de-DE", "de_AT" for German) names the source language."""
        return primary(tag) == self.source

    def retag(self, tag: str) -> str:
        """A tag of the source language as the target's, in the same form: the language alone
        stays alone ("de" -> "en"), a region becomes the target's, with the same separator
        ("de_AT" -> "en_US", "en-GB" -> "de-DE")."""
        core = tag.strip()
        for separator in "-_":
            if separator in core:
                return tag.replace(core, f"{self.target}{separator}{self.region}", 1)
        return tag.replace(core, self.target, 1)


DE_EN = LanguagePair("de", "en")
EN_DE = LanguagePair("en", "de")
