"""Tests of rules_core.dice: icepool is the independent oracle for exact distributions."""

from __future__ import annotations

import random
import time
from fractions import Fraction

import icepool
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rules_core.dice import (
    NOTATIONS,
    DiceError,
    Distribution,
    Expression,
    NotationError,
    Term,
    counts,
    keep,
    parse,
    parsing,
    roll,
)

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def exact(die: icepool.Die) -> dict[int, Fraction]:
    """icepool's distribution as {value: probability}, nonzero values only."""
    denominator = die.denominator()
    return {outcome: Fraction(q, denominator) for outcome, q in die.items() if q}


def as_dict(distribution: Distribution) -> dict[int, Fraction]:
    return dict(distribution.items())


# ------------------------------------------------------------ icepool as oracle


@st.composite
def expressions(draw: st.DrawFn) -> tuple[str, icepool.Die]:
    """A random expression (text with random spacing and case) and icepool's die for it."""
    pieces: list[str] = []
    oracle = icepool.Die([0])
    for index in range(draw(st.integers(1, 4))):
        sign = draw(st.sampled_from(["+", "-"])) if index else draw(st.sampled_from(["", "-"]))
        kind = draw(st.sampled_from(["sum", "sum", "keep", "constant"]))
        if kind == "constant":
            value = draw(st.integers(0, 30))
            text, die = str(value), icepool.Die([value])
        elif kind == "sum":
            count = draw(st.integers(1, 6))
            sides = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12, 20, 100]))
            shown = "" if count == 1 and draw(st.booleans()) else str(count)
            text, die = f"{shown}d{sides}", count @ icepool.d(sides)
        else:
            count = draw(st.integers(2, 5))
            sides = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12]))
            kept = draw(st.integers(1, count))
            highest = draw(st.booleans())
            text = f"{count}d{sides}{'kh' if highest else 'kl'}{kept}"
            if highest and draw(st.booleans()):
                text = f"{count}d{sides}k{kept}"
            die = (
                icepool.d(sides).highest(count, kept)
                if highest
                else icepool.d(sides).lowest(count, kept)
            )
        if draw(st.booleans()):
            text = text.upper()
        space = draw(st.sampled_from(["", " ", "  "]))
        pieces.append(f"{space}{sign}{space}{text}" if sign else text)
        oracle = oracle - die if sign == "-" else oracle + die
    return "".join(pieces), oracle


@SETTINGS
@given(expressions())
def test_expressions_match_icepool(case: tuple[str, icepool.Die]) -> None:
    text, oracle = case
    try:
        expression = parse(text)
    except DiceError as error:
        # The strategy can draw a few sums past the exact-table bound (tested on its own
        # below); those are refused by design, not computed wrongly.
        assume("Too large to compute exactly" not in str(error))
        raise
    distribution = expression.distribution()
    assert as_dict(distribution) == exact(oracle)
    assert distribution.total == sum(distribution.counts)
    assert distribution.counts[0] > 0 and distribution.counts[-1] > 0
    assert (expression.minimum(), expression.maximum()) == (distribution.min, distribution.max)
    assert distribution.mean() == Fraction(oracle.mean())
    # The normalised text reads back as the same expression.
    again = parse(expression.text)
    assert again.text == expression.text
    assert again.distribution() == distribution


@SETTINGS
@given(expressions())
def test_fast_path_reads_like_the_full_parser(case: tuple[str, icepool.Die]) -> None:
    text, _ = case
    lowered = text.translate(parsing._TRANSLATE)
    fast = parsing._parse_simple(lowered)
    assert fast is not None
    assert fast == parsing._Parser(text, parsing._tokenize(text, lowered), None, None).parse()


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet="0123456789dDkKhHlLwWxX%+-−×*[] ()", max_size=30),
        st.text(max_size=30),
    )
)
def test_any_text_parses_or_raises_dice_error(text: str) -> None:
    start = time.perf_counter()
    try:
        expression = parse(text, weapon_die=8, level=3)
    except DiceError as error:
        assert str(error) and "\n" not in str(error)
    else:
        if expression.maximum() - expression.minimum() < 2000:
            distribution = expression.distribution()
            assert distribution.min == expression.minimum()
            assert distribution.max == expression.maximum()
    assert (
        time.perf_counter() - start < 5.0
    )  # a hang guard, not a speed target (benchmarks measure speed)


@SETTINGS
@given(
    st.integers(1, 40),
    st.sampled_from([2, 3, 4, 6, 7, 10]),
    st.data(),
)
def test_keep_matches_icepool(n: int, sides: int, data: st.DataObject) -> None:
    kept = data.draw(st.integers(1, min(n, 12)))
    highest = data.draw(st.booleans())
    if n * sides > 120:  # keep icepool's share of the run time small
        n = max(kept, 120 // sides)
    oracle = icepool.d(sides).highest(n, kept) if highest else icepool.d(sides).lowest(n, kept)
    assert as_dict(keep(n, sides, kept, highest)) == exact(oracle)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.integers(-20, 20), st.integers(0, 9), min_size=1, max_size=6).filter(
        lambda weights: any(weights.values())
    ),
    st.dictionaries(st.integers(-20, 20), st.integers(1, 9), min_size=1, max_size=6),
    st.integers(0, 6),
)
def test_distribution_arithmetic_matches_icepool(
    left: dict[int, int], right: dict[int, int], copies: int
) -> None:
    a, b = Distribution.from_weights(left), Distribution.from_weights(right)
    ia, ib = icepool.Die(left), icepool.Die(right)
    assert as_dict(a) == exact(ia)
    assert as_dict(a + b) == exact(ia + ib)
    assert as_dict(a - b) == exact(ia - ib)
    assert as_dict(-a) == exact(-ia)
    assert as_dict(a + 7) == exact(ia + 7)
    assert as_dict(3 - a) == exact(3 - ia)
    assert as_dict(a.repeat_sum(copies)) == exact(copies @ ia)
    assert as_dict(a.map(lambda x: max(0, x - 5))) == exact(ia.map(lambda x: max(0, x - 5)))
    assert as_dict(a.map(lambda x: x // 2)) == exact(ia.map(lambda x: x // 2))
    for n in range(-22, 23):
        assert a.at_least(n) == sum((p for v, p in a.items() if v >= n), Fraction(0))
        assert a.at_most(n) == sum((p for v, p in a.items() if v <= n), Fraction(0))
        assert a.probability(n) == exact(ia).get(n, 0)


# ------------------------------------------------------------- explicit cases


def test_one_sided_die() -> None:
    distribution = parse("1d1").distribution()
    assert (distribution.min, distribution.max, distribution.total) == (1, 1, 1)
    assert distribution.probability(1) == 1
    assert parse("5d1+2").distribution() == Distribution.constant(7)
    assert keep(3, 1, 2, True) == Distribution.constant(2)


def test_percentile_die() -> None:
    expression = parse("d%")
    assert expression.text == "d%"
    assert expression.terms[0].percentile
    distribution = expression.distribution()
    assert (distribution.min, distribution.max) == (1, 100)
    assert all(p == Fraction(1, 100) for _, p in distribution.items())
    assert parse("2D%").distribution() == parse("2d100").distribution()


def test_four_d6_keep_highest_three() -> None:
    distribution = parse("4d6kh3").distribution()
    assert distribution.mean() == Fraction(15869, 1296)
    assert (distribution.min, distribution.max, distribution.total) == (3, 18, 6**4)
    assert distribution.probability(18) == Fraction(21, 1296)
    assert distribution.probability(3) == Fraction(1, 1296)


def test_advantage_and_disadvantage() -> None:
    advantage = parse("2d20kh1").distribution()
    disadvantage = parse("2d20kl1").distribution()
    for v in range(1, 21):
        assert advantage.probability(v) == Fraction(2 * v - 1, 400)
        assert disadvantage.probability(v) == Fraction(41 - 2 * v, 400)
    assert advantage.mean() == Fraction(553, 40)
    assert disadvantage.mean() == Fraction(287, 40)


def test_range_and_mean_of_sums() -> None:
    small = parse("3d4+3")
    assert (small.minimum(), small.maximum()) == (6, 15)
    assert [v for v, _ in small.distribution().items()] == list(range(6, 16))
    assert parse("36d10").distribution().mean() == 198


def test_forty_d12() -> None:
    distribution = parse("40d12").distribution()
    assert (distribution.min, distribution.max, distribution.total) == (40, 480, 12**40)
    assert distribution.mean() == 260
    assert distribution.counts == distribution.counts[::-1]
    oracle = exact(40 @ icepool.d(12))
    assert as_dict(distribution) == oracle


def test_both_sum_methods_agree() -> None:
    """Kronecker substitution and prefix sums give the same tables (both code paths)."""
    for group in ([(6, 3)], [(7, 5)], [(2, 9)], [(10, 4)], [(6, 3), (4, 2), (20, 1)], [(3, 2)]):
        length = 1 + sum(n * (s - 1) for s, n in group)
        number = sum(n for _, n in group)
        prefix = counts.dice_sum_by_prefix_sums(group, length, number)
        size = counts.slot_bytes(max(prefix))
        packed = counts.product([counts.ones(s, size) ** n for s, n in group])
        assert counts.unpack(packed, length, size) == prefix
        oracle = icepool.Die([0])
        for s, n in group:
            oracle += n @ icepool.d(s)
        assert prefix == [oracle.quantity(v) for v in range(number, number + length)]
    # A large case that the cost model sends to prefix sums, checked against Kronecker.
    assert not counts.kronecker_is_faster(1001, 65, 200)
    size = counts.slot_bytes(6**199)
    packed = counts.ones(6, size) ** 200
    assert counts.dice_sum_counts([(6, 200)]) == counts.unpack(packed, 1001, size)


def test_weapon_dice() -> None:
    expression = parse("3dW+2", weapon_die=10)
    assert expression.text == "3d10+2"
    assert expression.terms[0].is_weapon and expression.terms[0].sides == 10
    assert expression.distribution().mean() == Fraction(37, 2)
    assert parse("2[W] + 4", weapon_die=8).distribution() == parse("2d8+4").distribution()
    assert parse("dw", weapon_die=6).text == "1d6"
    with pytest.raises(DiceError) as error:
        parse("3dW+2")
    assert str(error.value) == "dW needs a weapon die (for example --weapon d8)."


def test_dice_times_level() -> None:
    expression = parse("d8 x Level + 3", level=4)
    assert expression.text == "4d8+3"
    assert expression.terms[0].per_level and expression.terms[0].count == 4
    assert expression.distribution().mean() == 21
    assert parse("Level × d6", level=3).text == "3d6"
    assert parse("d8 x 3").text == "3d8"
    assert parse("2d6 * 2").text == "2d6x2"  # dice written with their count: Multiply a Die
    assert parse("2 x level + LEVEL", level=5).distribution() == Distribution.constant(15)
    assert parse("d8 x level", level=0).distribution() == Distribution.constant(0)
    with pytest.raises(DiceError) as error:
        parse("d8 x Level")
    assert str(error.value) == "Level needs a character level (for example --level 5)."
    with pytest.raises(DiceError, match="Cannot multiply Level by Level"):
        parse("Level x Level", level=3)
    with pytest.raises(DiceError, match="Cannot multiply dice by dice"):
        parse("d8 x d6")


def test_with_dice_maximised() -> None:
    critical = parse("2d6+3").with_dice_maximised()
    assert critical.text == "12+3"
    assert not critical.dice_terms()
    assert critical.distribution() == Distribution.constant(15)
    assert parse("4d6kh3+1d4+1").with_dice_maximised().text == "18+4+1"
    assert parse("1d8-1d4").with_dice_maximised().text == "8-1"
    assert parse("1d8-1d4").with_dice_maximised().maximum() == parse("1d8-1d4").maximum()
    assert parse("2dW+d%", weapon_die=12).with_dice_maximised().distribution().min == 124


def test_doubled_dice() -> None:
    doubled = parse("2d6+3").doubled_dice()
    assert doubled.text == "4d6+3"
    assert doubled.distribution() == parse("4d6+3").distribution()
    kept = parse("4d6kh3-1").doubled_dice()
    assert kept.text == "4d6kh3+4d6kh3-1"
    oracle = icepool.d(6).highest(4, 3) + icepool.d(6).highest(4, 3) - 1
    assert as_dict(kept.distribution()) == exact(oracle)
    assert parse("5").doubled_dice().text == "5"
    with pytest.raises(DiceError, match=r"Too many dice: 300d2 rolls 300 \(at most 200"):
        parse("150d2").doubled_dice()


def test_at_least_and_at_most() -> None:
    two_d6 = parse("2d6").distribution()
    assert two_d6.at_least(10) == Fraction(6, 36)
    assert two_d6.at_least(2) == 1 and two_d6.at_least(-5) == 1
    assert two_d6.at_least(13) == 0
    assert two_d6.at_most(4) == Fraction(6, 36)
    assert two_d6.at_most(1) == 0 and two_d6.at_most(12) == 1
    assert parse("1d20+5").distribution().at_least(16) == Fraction(1, 2)


def test_distribution_constructors() -> None:
    normalised = Distribution(3, (0, 2, 0, 4, 0))
    assert (normalised.offset, normalised.counts, normalised.total) == (4, (2, 0, 4), 6)
    assert normalised == Distribution.from_weights({4: Fraction(1, 3), 6: Fraction(2, 3)})
    assert Distribution.from_weights({0: 3, 1: 6}).counts == (1, 2)
    assert Distribution.die(6) == parse("1d6").distribution()
    assert hash(Distribution.die(4)) == hash(Distribution(1, (5, 5, 5, 5)))
    assert Distribution(1, (5, 5, 5, 5)) == Distribution.die(4)
    assert Distribution.die(4) != Distribution.die(5)
    for bad in ((0, ()), (0, (0, 0)), (0, (1, -1)), (0, (1.0,)), ("1", (1,))):
        with pytest.raises(DiceError):
            Distribution(*bad)
    with pytest.raises(DiceError):
        Distribution.from_weights({1: 0.5})
    with pytest.raises(DiceError):
        Distribution.from_weights({1: 0})
    with pytest.raises(DiceError):
        Distribution.die(0)


def test_mix() -> None:
    hit = parse("1d8+2").distribution()
    miss = Distribution.constant(0)
    mixture = Distribution.mix([(Fraction(3, 5), hit), (Fraction(2, 5), miss)])
    assert mixture.probability(0) == Fraction(2, 5)
    assert mixture.probability(3) == Fraction(3, 40)
    assert mixture.mean() == Fraction(3, 5) * hit.mean()
    assert sum(p for _, p in mixture.items()) == 1
    with pytest.raises(DiceError, match="add up to 1"):
        Distribution.mix([(Fraction(1, 2), hit)])
    with pytest.raises(DiceError, match="cannot be negative"):
        Distribution.mix([(Fraction(3, 2), hit), (Fraction(-1, 2), miss)])


def test_repeat_sum() -> None:
    d6 = Distribution.die(6)
    assert d6.repeat_sum(3) == d6 + d6 + d6
    assert d6.repeat_sum(0) == Distribution.constant(0)
    skewed = Distribution.from_weights({0: 1, 1: 2, 5: 1})
    assert skewed.repeat_sum(4) == skewed + skewed + skewed + skewed
    scaled = Distribution(2, (3, 3, 3))
    assert as_dict(scaled.repeat_sum(5)) == exact(5 @ icepool.Die([2, 3, 4]))
    start = time.perf_counter()
    with pytest.raises(DiceError, match="Too large to compute exactly"):
        d6.repeat_sum(10**9)
    assert time.perf_counter() - start < 5.0  # refused at once, never computed: a hang guard


def test_roll_is_reproducible_and_in_range() -> None:
    expression = parse("4d6kh3 + 2d8 - 1d4 + 3")
    first = roll(expression, random.Random(7))
    assert first == roll(expression, random.Random(7))
    low, high = expression.minimum(), expression.maximum()
    results = [roll(expression, random.Random(seed)) for seed in range(300)]
    assert len({total for total, _ in results}) > 5
    for total, rolled in results:
        assert low <= total <= high
        kept_group, plain, subtracted, constant = rolled
        assert len(kept_group) == 4 and len(plain) == 2 and len(subtracted) == 1
        assert constant == []
        assert all(1 <= v <= 6 for v in kept_group)
        assert sorted(kept_group[:3], reverse=True) == sorted(kept_group, reverse=True)[:3]
        assert total == sum(kept_group[:3]) + sum(plain) - sum(subtracted) + 3
    lowest = parse("3d20kl1")
    for seed in range(50):
        total, (rolled,) = roll(lowest, random.Random(seed))
        assert total == rolled[0] == min(rolled)


def test_terms_and_text() -> None:
    expression = parse("  -1D4 + 2d6kl1 −3 ")
    assert expression.text == "-1d4+2d6kl1-3"
    assert str(expression) == expression.text
    assert [term.sign for term in expression.terms] == [-1, 1, -1]
    assert expression.dice_terms() == expression.terms[:2]
    assert expression.terms[2] == Term(sign=-1, constant=3)
    built = Expression.from_terms([Term(count=2, sides=6), Term(constant=1)])
    assert built.text == "2d6+1"


# ------------------------------------------------------------------ Multiply a Die


def _enumerated(groups: list[tuple[int, int, int]]) -> dict[int, Fraction]:
    """Brute force over every roll: groups of (dice, sides, factor), each total x factor."""
    outcomes: dict[int, int] = {0: 1}
    for count, sides, factor in groups:
        group: dict[int, int] = {0: 1}
        for _ in range(count):
            step: dict[int, int] = {}
            for t, n in group.items():
                for face in range(1, sides + 1):
                    step[t + face] = step.get(t + face, 0) + n
            group = step
        combined: dict[int, int] = {}
        for t, n in outcomes.items():
            for g, m in group.items():
                combined[t + g * factor] = combined.get(t + g * factor, 0) + n * m
        outcomes = combined
    total = sum(outcomes.values())
    return {value: Fraction(n, total) for value, n in outcomes.items()}


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        ("10 x 1d6", [(1, 6, 10)]),
        ("5 x 1d8 + 1d8", [(1, 8, 5), (1, 8, 1)]),
        ("2d8 x 10", [(2, 8, 10)]),
        ("1d6 x 2 x 5", [(1, 6, 10)]),
        ("3 x 2d4 + 2", [(2, 4, 3), (0, 1, 1)]),
    ],
)
def test_multiply_a_die_multiplies_the_rolled_total(text: str, groups) -> None:
    constant = 2 if text.endswith("+ 2") else 0
    expected = {value + constant: p for value, p in _enumerated(groups).items()}
    assert dict(parse(text).distribution().items()) == expected
    assert "multiply-die" in parse(text).notations


def test_multiply_a_die_is_swingier_than_the_dice_it_replaces() -> None:
    multiplied, rolled = parse("10 x 1d6").distribution(), parse("10d6").distribution()
    assert (multiplied.min, multiplied.max, multiplied.mean()) == (10, 60, 35)
    assert (rolled.min, rolled.max, rolled.mean()) == (10, 60, 35)
    assert multiplied.at_least(50) == Fraction(2, 6) != rolled.at_least(50)


def test_a_die_type_times_a_count_is_that_many_dice() -> None:
    assert parse("d8 x 3").distribution() == parse("3d8").distribution()
    assert parse("d8 x Level", level=4).notations == {"per-level"}
    assert parse("1d8 x Level", level=4).distribution() == parse("4 x 1d8").distribution()


def test_rolling_a_multiplied_die_scales_the_total() -> None:
    total, rolled = roll(parse("10 x 1d6"), random.Random(3))
    assert total == 10 * rolled[0][0] and total % 10 == 0


@pytest.mark.parametrize(
    ("text", "notation"),
    [
        ("1dW", "weapon-dice"),
        ("2[W]+3", "weapon-dice"),
        ("d8 x Level", "per-level"),
        ("2 x Level", "per-level"),
        ("Level", "per-level"),
        ("d6 x 3", "per-level"),
        ("10 x 1d6", "multiply-die"),
        ("2d8 x 10", "multiply-die"),
    ],
)
def test_a_notation_outside_the_allowed_set_is_refused(text: str, notation: str) -> None:
    others = frozenset(NOTATIONS) - {notation}
    with pytest.raises(NotationError) as error:
        parse(text, weapon_die=8, level=3, notations=others)
    assert error.value.notation == notation
    parse(text, weapon_die=8, level=3, notations={notation})  # allowed alone
    parse(text, weapon_die=8, level=3)  # no set: every notation (the dice roller)
    parse("2d6+3", notations=())  # plain dice need none
