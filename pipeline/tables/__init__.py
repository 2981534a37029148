"""The word tables of the pipeline's rules, as data: one file each, read by the rule that uses it.

A new month spelling, abbreviation, closing or key name is a change of a file here, not of code.
Two layouts:

* ``NAME.tsv``: one entry a line, its columns apart by a tab (German first); ``pairs`` reads the
  first two columns as a mapping, ``rows`` every column.
* ``NAME.txt``: words apart by whitespace, any number a line (``words``).

In both, a line starting with ``#`` is a comment (why the table exists, where it comes from), and
blank lines are skipped. Order is kept: where a rule tries entries in turn, the file says which first.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files


class TableError(ValueError):
    """A table file that is missing or malformed (one line naming the file and line)."""


def _lines(name: str) -> list[tuple[int, str]]:
    try:
        text = files(__name__).joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TableError(f"no table {name!r} in {__name__}") from None
    return [(number, line) for number, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.startswith("#")]


@lru_cache(maxsize=None)
def rows(name: str, columns: int) -> tuple[tuple[str, ...], ...]:
    """The rows of ``NAME.tsv``, each of exactly ``columns`` tab-separated fields."""
    out = []
    for number, line in _lines(f"{name}.tsv"):
        fields = tuple(line.split("\t"))
        if len(fields) != columns or not all(fields):
            raise TableError(f"{name}.tsv line {number}: expected {columns} non-empty tab-separated fields, "
                             f"got {line!r}")
        out.append(fields)
    return tuple(out)


def pairs(name: str) -> dict[str, str]:
    """``NAME.tsv`` of two columns as a mapping from the first to the second, in file order."""
    table = dict(rows(name, 2))
    if len(table) != len(rows(name, 2)):
        raise TableError(f"{name}.tsv: an entry is listed twice")
    return table


@lru_cache(maxsize=None)
def words(name: str) -> tuple[str, ...]:
    """The words of ``NAME.txt``, in file order."""
    return tuple(word for _, line in _lines(f"{name}.txt") for word in line.split())
