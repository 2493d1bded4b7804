"""Reading numbers as the texts print them: '1,250', '+3', '−2', '2-3', '-' and 'N/A'."""

from __future__ import annotations

from rules_core.errors import RulesError

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


def signed(value: int) -> str:
    """+2 / −2, with the minus sign a reader expects."""
    return f"{value:+d}".replace("-", "−")


def counted(count: int, noun: str) -> str:
    """A count with its noun agreeing in number: "1 round", "2 rounds", "0 rounds"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def is_blank(cell: str) -> bool:
    return cell.strip() in ("", "-", "N/A")


# The ways people write a sign: "+7", "-2", "−2" (U+2212 minus sign).
_SIGNS = {"+": 1, "-": -1, "−": -1}
_ASCII_DIGITS = frozenset("0123456789")
MAX_DIGITS = 20
_SHOWN = 30  # characters of a refused value quoted back in a message


def shown(text: str) -> str:
    """A value quoted in a message, cut short so a long paste is not echoed whole."""
    cut = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
    return repr(cut)


def read_whole(text: str) -> int:
    """A whole number as people type it: '7', '+7', '-2', '−2', ' 7 '.

    ASCII digits only: int() would also take '１５', '١٥' and '1_5', and str.isdigit()
    '²'; a calculator that read them would answer a question nobody asked.
    Raises ValueError with a message for the user.
    """
    body = text.strip()
    sign = _SIGNS.get(body[:1], 0)
    digits = body[1:] if sign else body
    if not digits or not set(digits) <= _ASCII_DIGITS:
        raise ValueError(f"Enter a whole number such as 7 or -2, not {shown(text.strip())}.")
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"Enter a whole number of at most {MAX_DIGITS} digits.")
    return (sign or 1) * int(digits)
