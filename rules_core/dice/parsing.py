"""Reading a dice expression written the way rule texts write them."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from rules_core.dice.expressions import Expression, Term
from rules_core.dice.limits import (
    MAX_CONSTANT,
    MAX_DICE,
    MAX_KEEP_DICE,
    MAX_LEVEL,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TEXT_LENGTH,
    DiceError,
    NotationError,
)

# ---------------------------------------------------------------------- parsing

_TRANSLATE = str.maketrans(
    {"\u2212": "-", "\u2013": "-", "\u00d7": "x"}
    | {chr(code): chr(code + 32) for code in range(ord("A"), ord("Z") + 1)}
)
_TOKEN = re.compile(r"\s*(?:([0-9]+)|([a-z]+)|(\[w\])|([-+*%])|(\S))")
_WORD = re.compile("level|lvl|kh|kl|k|d|x|w")
_HINT = "use numbers, dice such as 2d6 or 4d6kh3, + and -"

_Token = tuple[str, int, int, int]  # kind, number value, start, end


def _tokenize(text: str, lowered: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(lowered):
        match = _TOKEN.match(lowered, position)
        if match is None:  # only trailing space is left
            break
        number, word, weapon, symbol, other = match.groups()
        start = match.start(match.lastindex or 0)
        position = match.end()
        if number is not None:
            tokens.append(("num", int(number), start, position))
        elif word is not None:
            index = start
            while index < position:
                piece = _WORD.match(lowered, index, position)
                if piece is None:
                    raise DiceError(
                        f"Cannot read {text!r}: unknown word {text[start:position]!r} ({_HINT})."
                    )
                kind = {"lvl": "level", "k": "kh"}.get(piece.group(), piece.group())
                tokens.append((kind, 0, index, piece.end()))
                index = piece.end()
        elif weapon is not None:
            tokens.append(("[w]", 0, start, position))
        elif symbol is not None:
            tokens.append(({"*": "x"}.get(symbol, symbol), 0, start, position))
        else:
            raise DiceError(f"Cannot read {text!r}: unexpected {other!r} ({_HINT}).")
    return tokens


@dataclass
class _Factor:
    """A parsed factor of a term: a number (maybe times Level) or a dice group."""

    start: int
    value: int = 0
    dice: Term | None = None
    per_level: bool = False
    is_level: bool = False
    explicit: bool = False  # dice written with their count ("1d6"), not a die type ("d6")


class _Parser:
    def __init__(
        self,
        text: str,
        tokens: list[_Token],
        weapon_die: int | None,
        level: int | None,
        notations: frozenset[str] | None = None,
    ) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.weapon_die = weapon_die
        self.level = level
        self.notations = notations
        self.used: set[str] = set()

    def use(self, notation: str, start: int) -> None:
        """Refuse a notation outside the allowed set, naming what was written."""
        if self.notations is not None and notation not in self.notations:
            raise NotationError(notation, self.snippet(start) or " ".join(self.text.split()))
        self.used.add(notation)

    # -- helpers

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def snippet(self, start: int) -> str:
        """The text from start to the last token taken, quoted in messages: any run of
        whitespace inside it (a tab, a line break) shown as one space, so a message is
        always one line."""
        end = self.tokens[self.index - 1][3] if self.index else start
        return " ".join(self.text[start:end].split())

    def shown(self, token: _Token) -> str:
        return self.text[token[2] : token[3]]

    def unexpected(self, token: _Token) -> DiceError:
        return DiceError(
            f"Unexpected {self.shown(token)!r} in {self.text!r}: expected a number or dice "
            "such as 2d6."
        )

    # -- grammar

    def parse(self) -> list[Term]:
        terms: list[Term] = []
        sign = 1
        if self.peek() in ("+", "-"):
            sign = -1 if self.take()[0] == "-" else 1
            self.expect_term_after(self.tokens[self.index - 1])
        while True:
            term = self.term(sign)
            terms.append(term)
            if len(terms) > MAX_TERMS:
                raise DiceError(
                    f"Too many terms in {self.text!r} (at most {MAX_TERMS} numbers and dice "
                    "groups)."
                )
            kind = self.peek()
            if kind is None:
                return terms
            token = self.take()
            if kind in ("+", "-"):
                sign = -1 if kind == "-" else 1
                self.expect_term_after(token)
                continue
            if kind in ("kh", "kl"):
                raise DiceError(
                    f"Keep ({self.shown(token)!r}) must follow dice, as in 4d6kh3, in "
                    f"{self.text!r}."
                )
            raise DiceError(f"Missing '+' or '-' before {self.shown(token)!r} in {self.text!r}.")

    def expect_term_after(self, operator: _Token) -> None:
        kind = self.peek()
        if kind is None:
            raise DiceError(
                f"Missing term after {self.shown(operator)!r} at the end of {self.text!r}."
            )
        if kind in ("+", "-"):
            raise DiceError(
                f"Missing term between {self.shown(operator)!r} and "
                f"{self.shown(self.tokens[self.index])!r} in {self.text!r}."
            )

    def term(self, sign: int) -> Term:
        start = self.tokens[self.index][2]
        factor = self.factor()
        while self.peek() == "x":
            times = self.take()
            if self.peek() is None:
                raise DiceError(
                    f"Missing number or Level after {self.shown(times)!r} in {self.text!r}."
                )
            factor = self.multiply(factor, self.factor(), start)
        if factor.is_level:
            self.use("per-level", start)
            factor.value = self.level_value()
            factor.per_level = True
        if factor.dice is not None:
            return factor.dice if sign > 0 else replace(factor.dice, sign=sign)
        if factor.value > MAX_CONSTANT:
            snippet = self.snippet(start)
            value = "" if snippet.isdigit() else f" gives {factor.value:,}"
            raise DiceError(f"Number too large: {snippet}{value} (at most {MAX_CONSTANT:,}).")
        return Term(sign=sign, constant=factor.value, per_level=factor.per_level)

    def level_value(self) -> int:
        if self.level is None:
            raise DiceError("Level needs a character level (for example --level 5).")
        return self.level

    def multiply(self, left: _Factor, right: _Factor, start: int) -> _Factor:
        if left.dice is not None and right.dice is not None:
            raise DiceError(f"Cannot multiply dice by dice: {self.snippet(start)}.")
        if left.dice is None and right.dice is not None:
            left, right = right, left
        for factor in (left, right):
            if factor.is_level:
                self.use("per-level", start)
                factor.value = self.level_value()
                factor.per_level = True
                factor.is_level = False
        per_level = right.per_level or (left.dice.per_level if left.dice else left.per_level)
        if right.per_level and (left.dice.per_level if left.dice else left.per_level):
            raise DiceError(f"Cannot multiply Level by Level: {self.snippet(start)}.")
        if left.dice is None:
            return _Factor(start, value=left.value * right.value, per_level=per_level)
        dice = left.dice
        if dice.keep is not None:
            raise DiceError(
                f"Cannot multiply a group that keeps dice: {self.snippet(start)} (write the "
                "groups out, as in 4d6kh3+4d6kh3)."
            )
        if left.explicit:  # "Multiply a Die": the rolled total times the number
            self.use("multiply-die", start)
            if right.value == 0:
                return _Factor(start, value=0, per_level=per_level)
            times = dice.factor * right.value
            if times > MAX_CONSTANT:
                raise DiceError(
                    f"Number too large: {self.snippet(start)} multiplies by {times:,} "
                    f"(at most {MAX_CONSTANT:,})."
                )
            return _Factor(
                start, dice=replace(dice, factor=times, per_level=per_level), explicit=True
            )
        self.use("per-level", start)  # a die type times a count, as in "X x Level"
        count = dice.count * right.value
        if count > MAX_DICE:
            raise DiceError(
                f"Too many dice: {self.snippet(start)} gives {count} (at most {MAX_DICE} dice "
                "in all)."
            )
        if count == 0:  # e.g. d8 x Level at level 0
            return _Factor(start, value=0, per_level=per_level)
        return _Factor(start, dice=replace(dice, count=count, per_level=per_level))

    def factor(self) -> _Factor:
        token = self.take()
        kind, value, start, _ = token
        if kind == "num":
            if self.peek() == "d":
                return self.dice(start, value, explicit=True)
            if self.peek() == "[w]":
                return self.weapon_bracket(start, value, explicit=True)
            return _Factor(start, value=value)
        if kind == "d":
            self.index -= 1
            return self.dice(start, 1)
        if kind == "[w]":
            self.index -= 1
            return self.weapon_bracket(start, 1)
        if kind == "level":
            return _Factor(start, is_level=True)
        raise self.unexpected(token)

    def weapon_bracket(self, start: int, count: int, explicit: bool = False) -> _Factor:
        self.take()  # [w]
        self.use("weapon-dice", start)
        sides = self.weapon_sides("[W]")
        return _Factor(start, dice=self.group(start, count, sides, weapon=True), explicit=explicit)

    def weapon_sides(self, written: str) -> int:
        if self.weapon_die is None:
            raise DiceError(f"{written} needs a weapon die (for example --weapon d8).")
        return self.weapon_die

    def dice(self, start: int, count: int, explicit: bool = False) -> _Factor:
        self.take()  # d
        kind = self.peek()
        percentile = weapon = False
        if kind == "num":
            sides = self.take()[1]
        elif kind == "%":
            self.take()
            sides, percentile = 100, True
        elif kind == "w":
            self.take()
            self.use("weapon-dice", start)
            sides, weapon = self.weapon_sides("dW"), True
        else:
            raise DiceError(
                f"Missing number of sides after 'd' in {self.snippet(start)!r} (for example 3d6)."
            )
        dice = self.group(start, count, sides, weapon, percentile)
        return _Factor(start, dice=dice, explicit=explicit)

    def group(
        self, start: int, count: int, sides: int, weapon: bool = False, percentile: bool = False
    ) -> Term:
        keep_count: int | None = None
        highest = True
        if self.peek() in ("kh", "kl"):
            highest = self.take()[0] == "kh"
            keep_count = self.take()[1] if self.peek() == "num" else 1
        snippet = self.snippet(start)
        if count < 1:
            raise DiceError(f"{snippet} rolls no dice: the number of dice must be at least 1.")
        if count > MAX_DICE:
            raise DiceError(f"Too many dice: {snippet} (at most {MAX_DICE} dice in all).")
        if sides < 1:
            raise DiceError(f"A die needs at least 1 side: {snippet}.")
        if sides > MAX_SIDES:
            raise DiceError(f"Too many sides: {snippet} (at most d{MAX_SIDES}).")
        if keep_count is not None:
            if keep_count < 1:
                raise DiceError(f"Cannot keep {keep_count} dice in {snippet}: keep at least 1.")
            if keep_count > count:
                raise DiceError(
                    f"Cannot keep {keep_count} dice in {snippet}: only {count} "
                    f"{'is' if count == 1 else 'are'} rolled."
                )
            if count > MAX_KEEP_DICE:
                raise DiceError(
                    f"Too many dice to keep from: {snippet} (at most {MAX_KEEP_DICE} dice in a "
                    "group with keep)."
                )
        return Term(
            count=count,
            sides=sides,
            keep=keep_count,
            keep_highest=highest,
            is_weapon=weapon,
            percentile=percentile,
        )


_SIMPLE_TERM = re.compile(r"\s*([-+]?)\s*(?:([0-9]*)d([0-9]+)(?:(k[hl]?)([0-9]+))?|([0-9]+))\s*")


def _parse_simple(lowered: str) -> list[Term] | None:
    """Fast path for the common shape: numbers, NdX and NdXkhK/klK joined by + and -.

    Returns None for anything else or anything out of bounds; the full parser then
    reads the text and words the error.
    """
    terms: list[Term] = []
    position = 0
    end = len(lowered)
    while position < end:
        match = _SIMPLE_TERM.match(lowered, position)
        if match is None or match.end() == position:
            return None
        sign_text, count_text, sides_text, keep_kind, keep_text, constant_text = match.groups()
        if terms and not sign_text:
            return None
        sign = -1 if sign_text == "-" else 1
        if constant_text is not None:
            value = int(constant_text)
            if value > MAX_CONSTANT:
                return None
            terms.append(Term(sign, 0, 0, value))
        else:
            count = int(count_text) if count_text else 1
            sides = int(sides_text)
            if not (1 <= count <= MAX_DICE and 1 <= sides <= MAX_SIDES):
                return None
            if keep_kind is None:
                terms.append(Term(sign, count, sides))
            else:
                kept = int(keep_text)
                if not 1 <= kept <= count <= MAX_KEEP_DICE:
                    return None
                terms.append(Term(sign, count, sides, 0, kept, keep_kind != "kl"))
        if len(terms) > MAX_TERMS:
            return None
        position = match.end()
    return terms or None


def parse(
    text: str,
    *,
    weapon_die: int | None = None,
    level: int | None = None,
    notations: Collection[str] | None = None,
) -> Expression:
    """Parse a dice expression such as ``3d4+3``, ``4d6kh3``, ``2dW+5`` or ``d8 x Level``.

    Grammar (case-insensitive; spaces allowed between parts; "−" and "–" are minus
    signs and "×" or "*" a times sign): a sum of terms joined by ``+`` and ``-``, with
    an optional leading sign.  A term is one of

    * a whole number (``3``);
    * ``NdX`` or ``dX`` (N defaults to 1), ``d%`` (one die 1..100: percentile dice,
      00 and 0 read as 100);
    * ``NdXkhK`` / ``NdXklK`` keeping the highest / lowest K dice (``kK`` is ``khK``,
      ``kh`` alone keeps 1);
    * ``NdW`` / ``dW`` or ``N[W]`` / ``[W]``: N weapon dice, with ``weapon_die`` sides;
    * a product with ``x``: a die type times a count is that many dice, ``d8 x 3``
      (3d8), ``d8 x Level`` / ``Level x d8`` (Level dice of type d8, the 3d6 rules'
      "X x Level"); dice written with their count times a number multiply the rolled
      total, ``10 x 1d6`` / ``2d8 x 10`` (the 3d6 rules' "Multiply a Die"); ``2 x Level``
      is a number, and so is ``Level``.

    ``notations`` limits the notations beyond plain dice to the named ones (keys of
    NOTATIONS): weapon dice, "per-level" (a die type times a count, or Level) and
    "multiply-die"; anything else raises NotationError.  None allows every notation.

    Raises DiceError, with a one-sentence message, for anything malformed or beyond
    the bounds (MAX_TEXT_LENGTH, MAX_TERMS, MAX_DICE, MAX_SIDES, MAX_KEEP_DICE,
    MAX_CONSTANT, MAX_LEVEL, MAX_TABLE_BITS, MAX_COMBINED_TABLE_BITS).
    """
    if not isinstance(text, str):
        raise DiceError(f"A dice expression must be text, such as 2d6+3, not {text!r}.")
    if len(text) > MAX_TEXT_LENGTH:
        raise DiceError(
            f"Dice expression too long: {len(text)} characters (at most {MAX_TEXT_LENGTH})."
        )
    if weapon_die is not None and (
        isinstance(weapon_die, bool)
        or not isinstance(weapon_die, int)
        or not 1 <= weapon_die <= MAX_SIDES
    ):
        raise DiceError(f"A weapon die has 1 to {MAX_SIDES} sides, not {weapon_die!r}.")
    if level is not None and (
        isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL
    ):
        raise DiceError(f"The level must be a whole number from 0 to {MAX_LEVEL}, not {level!r}.")
    lowered = text.translate(_TRANSLATE)
    terms = _parse_simple(lowered)
    if terms is None:  # anything else, and every error, goes through the full parser
        tokens = _tokenize(text, lowered)
        if not tokens:
            raise DiceError("Empty dice expression: write something such as 2d6+3.")
        allowed = None if notations is None else frozenset(notations)
        parser = _Parser(text, tokens, weapon_die, level, allowed)
        return Expression.from_terms(parser.parse(), frozenset(parser.used))
    return Expression.from_terms(terms)
