"""Recompute arithmetic tables, compare with the print, and render tables as Markdown."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hooks.content.tables import TEMPLATE_FIELD, Table
from hooks.content.yaml_lines import ContentError, one_of
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import calculator_markdown_address
from rules_core.dice import parse as parse_dice

MINUS_SIGNS = str.maketrans({"−": "-", "–": "-"})


@dataclass(frozen=True)
class Mismatch:
    row: str
    column: str
    printed: str
    computed: str
    line: int


def parse_number(cell: str) -> Fraction:
    """'1,250' -> 1250, '+3' -> 3, '−2' -> -2, '5.5' -> 11/2."""
    text = cell.strip().translate(MINUS_SIGNS).replace(",", "")
    return Fraction(text.removeprefix("+"))


def parse_range(cell: str) -> range:
    """'2-3' -> range(2, 4); '7' -> range(7, 8)."""
    low, _, high = cell.strip().translate(MINUS_SIGNS).partition("-")
    return range(int(low), int(high or low) + 1)


class _NotANumber(ValueError):
    """A cell of a checked table that is not the number or range the check reads."""

    def __init__(self, column: str, cell: str, expected: str, line: int) -> None:
        super().__init__(column, cell, expected, line)
        self.column, self.cell, self.expected, self.line = column, cell, expected, line


def _read(table: Table, index: int, row: list[str], line: int, read: Callable[[str], Any]) -> Any:
    """A cell read as a number (or range); a cell that is none says which column."""
    try:
        return read(row[index])
    except (ValueError, ZeroDivisionError):
        expected = "a range such as 2-3 or 7" if read is parse_range else "a number such as 1,250"
        raise _NotANumber(table.columns[index], row[index], expected, line) from None


def _show(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(float(value))


def _check_ability_modifier(table: Table, check: Mapping[str, str]) -> list[Mismatch]:
    score = table.column_index(check["score"], table.check_line)
    modifier = table.column_index(check["modifier"], table.check_line)
    found = []
    for row, line in zip(table.rows, table.row_lines, strict=True):
        printed = _read(table, modifier, row, line, parse_number)
        expected = {(value - 10) // 2 for value in _read(table, score, row, line, parse_range)}
        if expected != {printed}:
            computed = ", ".join(f"{value:+d}" for value in sorted(expected))
            found.append(Mismatch(row[0], table.columns[modifier], row[modifier], computed, line))
    return found


def _check_cumulative(table: Table, check: Mapping[str, str]) -> list[Mismatch]:
    step = table.column_index(check["step"], table.check_line)
    total = table.column_index(check["total"], table.check_line)
    found = []
    previous_total: Fraction | None = None
    previous_step: Fraction | None = None
    for row, line in zip(table.rows, table.row_lines, strict=True):
        printed = (
            Fraction(0)
            if row[total].strip() == "-"
            else _read(table, total, row, line, parse_number)
        )
        if previous_total is not None:
            if previous_step is None:
                raise ContentError(
                    table.path,
                    line,
                    "a row follows a row with no next step (N/A): only the last row's step "
                    "may be N/A, so fix that step or the order of the rows",
                )
            expected = previous_total + previous_step
            if expected != printed:
                found.append(
                    Mismatch(row[0], table.columns[total], row[total], f"{_show(expected)}", line)
                )
        previous_total = printed
        previous_step = (
            None
            if row[step].strip().upper() == "N/A"
            else _read(table, step, row, line, parse_number)
        )
    return found


def _check_dice_average(table: Table, check: Mapping[str, str]) -> list[Mismatch]:
    count = table.column_index(check["count"], table.check_line)
    found = []
    for row, line in zip(table.rows, table.row_lines, strict=True):
        for index, column in enumerate(table.columns):
            if index == count:
                continue
            dice = _read(table, count, row, line, parse_number)
            expression = f"{dice}{column.strip()}"
            mean = parse_dice(expression).distribution().mean()
            if _read(table, index, row, line, parse_number) != mean:
                found.append(Mismatch(row[0], column, row[index], _show(mean), line))
    return found


# Each reads the parameters of the table's check (hooks.content.tables.CHECK_PARAMETERS).
CHECKS: dict[str, Callable[[Table, Mapping[str, str]], list[Mismatch]]] = {
    "ability-modifier": _check_ability_modifier,
    "cumulative": _check_cumulative,
    "dice-average": _check_dice_average,
}

CHECK_DESCRIPTIONS = {
    "ability-modifier": "every modifier is (score − 10) ÷ 2, rounded down",
    "cumulative": "every cumulative total is the previous total plus the previous step",
    "dice-average": "every average is the number of dice × (sides + 1) ÷ 2",
}


def check_table(table: Table) -> list[Mismatch]:
    """Recompute a checked table; every difference must be a recorded erratum and vice versa."""
    check = table.check
    if check is None:
        return []
    try:
        mismatches = CHECKS[check["kind"]](table, check)
    except _NotANumber as error:
        raise ContentError(
            table.path,
            error.line,
            f"column '{error.column}' holds '{error.cell}', but the build checks this table "
            f"arithmetically ({CHECK_DESCRIPTIONS[check['kind']]}) and needs "
            f"{error.expected} there: write the cell as printed, in digits, or remove "
            "'check:' if the table is not arithmetic",
        ) from None
    recorded = {(erratum.row, erratum.column): erratum for erratum in table.errata}
    for mismatch in mismatches:
        if (mismatch.row, mismatch.column) not in recorded:
            raise ContentError(
                table.path,
                mismatch.line,
                f"row '{mismatch.row}', column '{mismatch.column}' prints {mismatch.printed} "
                f"but computes to {mismatch.computed}: fix the transcription, or record the "
                "misprint under 'errata' with a note",
            )
    wrong = {(mismatch.row, mismatch.column) for mismatch in mismatches}
    for key, erratum in recorded.items():
        if key not in wrong:
            raise ContentError(
                table.path,
                erratum.line,
                f"erratum for row '{erratum.row}', column '{erratum.column}' but that cell "
                "computes correctly: remove the erratum or fix the cell",
            )
    return mismatches


def _cell(text: str) -> str:
    return text.replace("|", "\\|").strip() or " "


def _input_value(cell: str) -> str:
    """A printed cell as a calculator input: '1,250' -> '1250', '-' -> '0', '2-3' -> '2'."""
    text = cell.strip().translate(MINUS_SIGNS).replace(",", "").removeprefix("+")
    if text == "-":
        return "0"
    low, dash, _ = text.partition("-")
    return low if dash and low.isdigit() else text


def _calculator_links(table: Table, root: str) -> Callable[[list[str], int], str | None]:
    """For a table with a `calculator`, the link of each row's cell (None where none);
    `root` leads from the page to the docs root."""
    spec = table.calculator
    if spec is None:
        return lambda row, index: None
    if spec.name not in CALCULATORS:
        raise ContentError(
            table.path,
            spec.line,
            f"no calculator named '{spec.name}'" + one_of(spec.name, "calculators", CALCULATORS),
        )
    fields = [field.name for field in CALCULATORS[spec.name].fields]
    for name in spec.inputs:
        if name not in fields:
            raise ContentError(
                table.path,
                spec.line,
                f"the {spec.name} calculator has no input '{name}'"
                + one_of(name, "inputs", fields),
            )
    title = f"Open in the {CALCULATORS[spec.name].title} calculator"

    def link(row: list[str], index: int) -> str | None:
        if (spec.link == "row") != (index == 0):
            return None
        values = {**dict(zip(table.columns, row, strict=True)), "column": table.columns[index]}
        inputs = {"system": table.system}
        for field, template in spec.inputs.items():
            inputs[field] = TEMPLATE_FIELD.sub(
                lambda match: _input_value(values[match.group(1)]), template
            )
        return f'{calculator_markdown_address(spec.name, inputs, root)} "{title}"'

    return link


def render_table(table: Table, mismatches: list[Mismatch], root: str = "../") -> str:
    """The table as Markdown: caption, rows as printed, calculator links, errata; `root`
    leads from the page to the docs root (a system's pages sit one folder below it)."""
    computed = {(mismatch.row, mismatch.column): mismatch.computed for mismatch in mismatches}
    errata = {(erratum.row, erratum.column): erratum for erratum in table.errata}
    anchor = f"table-{table.name}"
    lines = [f'<span id="{anchor}"></span>', ""]
    if table.title:
        lines += [f"**{table.title}**", ""]
    lines.append("| " + " | ".join(_cell(column) for column in table.columns) + " |")
    lines.append("|" + "|".join(" --- " for _ in table.columns) + "|")
    link_of = _calculator_links(table, root)
    for row in table.rows:
        cells = []
        for index, (column, text) in enumerate(zip(table.columns, row, strict=True)):
            cell = _cell(text)
            link = link_of(row, index)
            if link is not None and cell.strip():
                cell = f"[{cell}]({link})"
            if (row[0], column) in errata:
                cell += f' <sup>[erratum](#{anchor}-errata "Misprint: see the erratum note")</sup>'
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if table.check is not None:
        lines += [
            f'<p class="table-check" markdown>Checked by the build: '
            f"{CHECK_DESCRIPTIONS[table.check['kind']]}.</p>",
            "",
        ]
    if table.errata:
        lines += [f'<span id="{anchor}-errata"></span>', "", '!!! erratum "Erratum"']
        for erratum in table.errata:
            detail = f"printed {_cell(_find(table, erratum.row, erratum.column))}"
            if (erratum.row, erratum.column) in computed:
                detail += f", computed {computed[(erratum.row, erratum.column)]}"
            lines.append(
                f"    - Row {erratum.row}, column {erratum.column}: {detail}. {erratum.note}"
            )
        lines.append("")
    return "\n".join(lines)


def _find(table: Table, row_key: str, column: str) -> str:
    index = table.columns.index(column)
    return next(row[index] for row in table.rows if row[0] == row_key)
