"""Load and validate a system's tables (content/<system>/tables/*.yml): columns, rows, the
check that recomputes a printed table, its errata and the calculator its rows open."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hooks.content.markup_safety import check_yaml_texts
from hooks.content.yaml_lines import (
    ContentError,
    LineDict,
    LineList,
    check_keys,
    did_you_mean,
    load_yaml,
    one_of,
    require_mapping,
    required_text,
)

# A line of a page holding only `[[table:<name>]]`: where the table is placed.
TABLE_PLACEHOLDER = re.compile(r"^\[\[table:([a-z0-9-]+)\]\]$")


@dataclass(frozen=True)
class Erratum:
    row: str
    column: str
    note: str
    line: int


@dataclass(frozen=True)
class TableCalculator:
    """A table whose rows (or cells) open a calculator prefilled from the row."""

    name: str
    link: str  # "row": the first cell of each row links; "cells": every cell but the first
    inputs: dict[str, str]  # field -> template such as "{Cumulative XP}" or "{#}{column}"
    line: int


@dataclass
class Table:
    system: str
    name: str
    path: Path
    title: str
    columns: list[str]
    rows: list[list[str]]
    row_lines: list[int]
    check: dict[str, str] | None
    check_line: int
    errata: list[Erratum]
    calculator: TableCalculator | None = None
    title_line: int = 1
    columns_line: int = 1

    def column_index(self, name: str, line: int | None = None) -> int:
        if name not in self.columns:
            raise ContentError(
                self.path,
                line,
                f"no column named '{name}'" + one_of(name, "columns", self.columns),
            )
        return self.columns.index(name)


CHECK_PARAMETERS = {
    "ability-modifier": ("score", "modifier"),
    "cumulative": ("step", "total"),
    "dice-average": ("count",),
}


def load_checked_yaml(path: Path) -> Any:
    """A YAML file whose every text has been checked for markup that could run code."""
    data = load_yaml(path)
    check_yaml_texts(data, path)
    return data


def load_table(system: str, path: Path) -> Table:
    data = require_mapping(load_checked_yaml(path), path, "a table file")
    check_keys(
        data, path, ("title", "columns", "rows"), ("check", "errata", "calculator"), "a table"
    )
    columns = data["columns"]
    if not isinstance(columns, list) or not columns:
        raise ContentError(
            path,
            data.line_of("columns"),
            "'columns' must be a non-empty list, e.g. columns: [Score, Modifier]",
        )
    rows = data["rows"]
    if not isinstance(rows, LineList) or not rows:
        raise ContentError(
            path,
            data.line_of("rows"),
            '\'rows\' must be a non-empty list of rows, each a line such as - ["1", "-5"]',
        )
    cells: list[list[str]] = []
    for row, line in zip(rows, rows.item_lines, strict=True):
        if not isinstance(row, list):
            raise ContentError(path, line, 'each row must be a list of cells, e.g. - ["2-3", "-4"]')
        if len(row) != len(columns):
            raise ContentError(
                path,
                line,
                f"ragged row: {len(row)} cells, but the table has {len(columns)} columns: "
                f'give every row {len(columns)} cells (an empty cell is "")',
            )
        for cell in row:
            if not isinstance(cell, str):
                raise ContentError(
                    path,
                    line,
                    f"cell {cell!r} must be quoted text, exactly as printed: "
                    "put it in double quotes",
                )
        cells.append([str(cell) for cell in row])
    check = None
    if "check" in data:
        raw = require_mapping(data["check"], path, "'check'")
        kind = raw.get("kind")
        if kind not in CHECK_PARAMETERS:
            raise ContentError(
                path,
                raw.line_of("kind"),
                f"unknown check kind {kind!r}" + one_of(kind, "known", CHECK_PARAMETERS),
            )
        check_keys(raw, path, ("kind", *CHECK_PARAMETERS[kind]), (), f"a '{kind}' check")
        check = {str(key): str(value) for key, value in raw.items()}
    errata = []
    for entry in data.get("errata") or []:
        entry = require_mapping(entry, path, "an erratum")
        check_keys(entry, path, ("row", "column", "note"), (), "an erratum")
        errata.append(
            Erratum(
                str(entry["row"]),
                str(entry["column"]),
                required_text(entry, "note", path),
                entry.line,
            )
        )
    table = Table(
        system=system,
        name=path.stem,
        path=path,
        title=required_text(data, "title", path, allow_empty=True),
        columns=[str(column) for column in columns],
        rows=cells,
        row_lines=list(rows.item_lines),
        check=check,
        check_line=data.line_of("check"),
        errata=errata,
        calculator=_table_calculator(data, path, [str(column) for column in columns]),
        title_line=data.line_of("title"),
        columns_line=data.line_of("columns"),
    )
    first_cells = [row[0] for row in cells]
    for erratum in errata:
        table.column_index(erratum.column, erratum.line)
        if erratum.row not in first_cells:
            raise ContentError(
                path,
                erratum.line,
                f"no row whose first cell is '{erratum.row}': 'row' names a row by its "
                f"first cell, exactly as printed ({_some(first_cells)})",
            )
    return table


def _some(cells: list[str]) -> str:
    """'a', 'b', 'c' or, for a long list, its first three and last items."""
    shown = [f"'{cell}'" for cell in cells]
    return ", ".join(shown if len(shown) <= 6 else [*shown[:3], "...", shown[-1]])


TEMPLATE_FIELD = re.compile(r"\{([^{}]+)\}")


def _table_calculator(data: LineDict, path: Path, columns: list[str]) -> TableCalculator | None:
    if "calculator" not in data:
        return None
    raw = require_mapping(data["calculator"], path, "'calculator'")
    check_keys(raw, path, ("name", "link", "inputs"), (), "a table's calculator")
    if raw["link"] not in ("row", "cells"):
        raise ContentError(
            path,
            raw.line_of("link"),
            "'link' must be 'row' (each row's first cell links) or 'cells' (every other cell "
            "links)",
        )
    inputs = require_mapping(raw["inputs"], path, "'inputs'")
    for name_of_input, template in inputs.items():
        for name in TEMPLATE_FIELD.findall(str(template)):
            if name not in columns and name != "column":
                raise ContentError(
                    path,
                    inputs.line_of(str(name_of_input)),
                    f"'{{{name}}}' names no column (columns: {', '.join(columns)}; "
                    "{column} is the cell's header)" + did_you_mean(name, [*columns, "column"]),
                )
    return TableCalculator(
        name=required_text(raw, "name", path),
        link=str(raw["link"]),
        inputs={str(key): str(template) for key, template in inputs.items()},
        line=raw.line,
    )
