"""What the typed sections share: their citations, an optional part, and a table they read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rules_core.systems import Citation


def citations(entry: Mapping[str, Any]) -> tuple[Citation, ...]:
    """An entry's `cite` list as citations (none where it has none)."""
    return tuple(Citation.of(cited) for cited in entry.get("cite") or ())


def optional[T](
    entry: Mapping[str, Any], key: str, build: Callable[[Mapping[str, Any]], T]
) -> T | None:
    """entry[key] built as its typed section, or None where the text gives none."""
    value = entry.get(key)
    return None if value is None else build(value)


@dataclass(frozen=True)
class Table:
    """A table of the text a rule reads (the compiled data puts it in place of its name):
    its rows, each a printed cell by column name."""

    rows: tuple[Mapping[str, str], ...]

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> Table:
        return cls(tuple(table["rows"]))
