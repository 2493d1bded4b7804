"""rules_core.dice at its bounds: malformed text and oversized rolls are refused with a
clear message, before any heavy work, and the documented limits are the code's."""

from __future__ import annotations

import time

import pytest

from rules_core.dice import (
    MAX_COMBINED_TABLE_BITS,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_KEEP_DICE,
    MAX_SIDES,
    MAX_TABLE_BITS,
    MAX_TERMS,
    MAX_TEXT_LENGTH,
    DiceError,
    keep,
    limits,
    parse,
)

# ----------------------------------------------------------- errors and bounds

MALFORMED = [
    ("", "Empty dice expression: write something such as 2d6+3."),
    ("   ", "Empty dice expression: write something such as 2d6+3."),
    ("3d", "Missing number of sides after 'd' in '3d' (for example 3d6)."),
    ("d", "Missing number of sides after 'd' in 'd' (for example 3d6)."),
    ("d0", "A die needs at least 1 side: d0."),
    ("2d6kh3", "Cannot keep 3 dice in 2d6kh3: only 2 are rolled."),
    ("2d6kh0", "Cannot keep 0 dice in 2d6kh0: keep at least 1."),
    ("0d6", "0d6 rolls no dice: the number of dice must be at least 1."),
    (
        "abc",
        "Cannot read 'abc': unknown word 'abc' (use numbers, dice such as 2d6 or 4d6kh3, + and -).",
    ),
    ("1d6 / 2", "Cannot read '1d6 / 2': unexpected '/'"),
    ("1d6++2", "Missing term between '+' and '+' in '1d6++2'."),
    ("1d6+", "Missing term after '+' at the end of '1d6+'."),
    ("-", "Missing term after '-' at the end of '-'."),
    ("2 3", "Missing '+' or '-' before '3' in '2 3'."),
    ("1d6d6", "Missing '+' or '-' before 'd' in '1d6d6'."),
    ("d6 x", "Missing number or Level after 'x' in 'd6 x'."),
    ("x3", "Unexpected 'x' in 'x3': expected a number or dice such as 2d6."),
    ("5kh1", "Keep ('kh') must follow dice, as in 4d6kh3, in '5kh1'."),
    ("4d6kh3 x 2", "Cannot multiply a group that keeps dice: 4d6kh3 x 2"),
    ("2[W]", "[W] needs a weapon die (for example --weapon d8)."),
    ("10000d6", "Too many dice: 10000d6 (at most 200 dice in all)."),
    ("10000d10000", "Too many dice: 10000d10000 (at most 200 dice in all)."),
    ("100d6+101d6", "Too many dice: 100d6+101d6 rolls 201 (at most 200 dice in all)."),
    ("d6 x 1000", "Too many dice: d6 x 1000 gives 1000 (at most 200 dice in all)."),
    ("d1001", "Too many sides: d1001 (at most d1000)."),
    ("50d6kh3", "Too many dice to keep from: 50d6kh3 (at most 40 dice in a group with keep)."),
    ("1000001", "Number too large: 1000001 (at most 1,000,000)."),
    ("3 x 400000", "Number too large: 3 x 400000 gives 1,200,000 (at most 1,000,000)."),
    ("200d20", "Too large to compute exactly: 200d20 has 3,801 possible totals with counts of up"),
    (
        "40d20kh20+40d20kh20+40d20kh20",
        "Too large to compute exactly: 40d20kh20+40d20kh20+40d20kh20 has 1,141 possible "
        "totals with counts of up to 519 bits (592,179 bits; at most 75,000 for a group that "
        "keeps dice combined with other dice).",
    ),
    ("+".join(["1"] * (MAX_TERMS + 1)), "Too many terms in '1+1+1"),
    ("1" * (MAX_TEXT_LENGTH + 1), "Dice expression too long: 201 characters (at most 200)."),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_and_out_of_bounds(text: str, message: str) -> None:
    start = time.perf_counter()
    with pytest.raises(DiceError) as error:
        parse(text)
    assert time.perf_counter() - start < 2.0  # refused before any work: a hang guard
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_bad_arguments() -> None:
    with pytest.raises(DiceError, match="A weapon die has 1 to 1000 sides, not 0"):
        parse("1d6", weapon_die=0)
    with pytest.raises(DiceError, match="The level must be a whole number from 0 to 100"):
        parse("1d6", level=-1)
    with pytest.raises(DiceError, match="must be text"):
        parse(None)  # type: ignore[arg-type]
    with pytest.raises(DiceError, match="Cannot keep 5 of 4d6"):
        keep(4, 6, 5, True)


def test_bounds_are_the_documented_constants() -> None:
    assert (MAX_DICE, MAX_SIDES, MAX_KEEP_DICE, MAX_CONSTANT) == (200, 1000, 40, 10**6)
    parse(f"{MAX_DICE}d2")
    parse(f"1d{MAX_SIDES}")
    parse(f"{MAX_KEEP_DICE}d6kh20")
    parse(f"{MAX_CONSTANT}")
    parse("-".join(["1d6"] * MAX_TERMS))
    parse(" + ".join(["1d6"] * MAX_TERMS).ljust(MAX_TEXT_LENGTH))
    # 100d6: 501 totals x 259 bits; two 20d20kh10: 381 totals x 173 bits.
    assert 501 * (6**100).bit_length() <= MAX_TABLE_BITS
    assert 381 * (20**40).bit_length() <= MAX_COMBINED_TABLE_BITS
    parse("100d6").distribution()
    parse("20d20kh10+20d20kh10").distribution()
    with pytest.raises(DiceError, match="Too large to compute exactly: 200d6"):
        parse("200d6").distribution()


@pytest.mark.parametrize("text", ["100d6", "60d12", "20d60kh19", "14d100", "4d6kh3+60d6"])
def test_expressions_at_the_bounds_are_fast(text: str) -> None:
    expression = parse(text)
    start = time.perf_counter()
    distribution = expression.distribution()
    # About 15 ms on a desktop CPU; generous for slow or busy machines.
    assert (
        time.perf_counter() - start < 5.0
    )  # a hang guard; benchmarks/bench_dice.py measures speed
    rolls = 1
    for term in expression.dice_terms():
        rolls *= term.sides**term.count
    assert distribution.total == sum(distribution.counts) == rolls
    assert (distribution.min, distribution.max) == (expression.minimum(), expression.maximum())


def test_documented_bound_examples_are_true() -> None:
    """Every 'NdX (bits)' example in the bounds' comments is computed here, not trusted."""
    import inspect
    import re

    source = inspect.getsource(limits)
    examples = re.findall(r"(\d+)d(\d+) \(([\d,]+)\)", source)
    assert examples, "the bounds' examples are gone"
    for count, sides, bits in examples:
        n, s = int(count), int(sides)
        assert (n * (s - 1) + 1) * (s**n).bit_length() == int(bits.replace(",", "")), count
        fits = int(bits.replace(",", "")) <= MAX_TABLE_BITS
        if fits:
            parse(f"{n}d{s}").distribution()
        else:
            with pytest.raises(DiceError, match="Too large"):
                parse(f"{n}d{s}").distribution()
    assert "600,000" not in source and "200d6 and 40d12 fit" not in source
