"""Reading numbers as the texts print them: '1,250', '+3', '−2', '2-3', '-' and 'N/A'."""

from __future__ import annotations

from rules_core.systems import RulesError

_DASHES = str.maketrans({"−": "-", "–": "-"})


def parse_printed_int(cell: str) -> int:
    text = cell.strip().translate(_DASHES).replace(",", "").removeprefix("+")
    try:
        return int(text)
    except ValueError:
        raise RulesError(f"Expected a whole number in the rules data, found '{cell}'.") from None


def parse_printed_range(cell: str) -> range:
    """'2-3' -> range(2, 4); '7' -> range(7, 8)."""
    low, _, high = cell.strip().translate(_DASHES).partition("-")
    return range(parse_printed_int(low), parse_printed_int(high or low) + 1)


def is_blank(cell: str) -> bool:
    return cell.strip() in ("", "-", "N/A")
