"""Counts of outcomes as exact integers: packed polynomials (Kronecker substitution), sums of
dice, and keep-highest tables (see rules_core.dice for the methods)."""

from __future__ import annotations

import heapq
import math
import sys
from array import array
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import add, mul
from typing import Literal

from rules_core.dice.limits import MAX_SPAN, MAX_WORK_BITS, DiceError

# ----------------------------------------------------------- packed polynomials

LITTLE_ENDIAN = sys.byteorder == "little"
# Slot sizes that memoryview.cast / array can read in one C call (native order).
_LITTLE: Literal["little"] = "little"  # int.to_bytes takes only "little" or "big"
_WordCode = Literal["B", "H", "I", "Q"]  # unsigned integers: memoryview.cast gives ints
_WORD_CODES: dict[int, _WordCode] = {}
if LITTLE_ENDIAN:
    _codes: tuple[_WordCode, ...] = ("B", "H", "I", "Q")
    for _code in _codes:
        _WORD_CODES.setdefault(array(_code).itemsize, _code)


def slot_bytes(bound: int) -> int:
    """Bytes per packed coefficient so that every count up to ``bound`` fits."""
    size = max(1, (bound.bit_length() + 7) // 8)
    if size <= 8 and _WORD_CODES:
        for word in (1, 2, 4, 8):
            if size <= word and word in _WORD_CODES:
                return word
    return size


def pack(counts: Sequence[int], size: int) -> int:
    """The integer sum(counts[i] << (8 * size * i)); each count must fit in a slot."""
    code = _WORD_CODES.get(size)
    if code is not None:
        return int.from_bytes(array(code, counts).tobytes(), "little")
    data = b"".join(map(int.to_bytes, counts, repeat(size), repeat(_LITTLE)))
    return int.from_bytes(data, "little")


def unpack(value: int, length: int, size: int) -> list[int]:
    """The ``length`` slots of a packed integer (the inverse of `pack`)."""
    data = value.to_bytes(length * size, "little")
    code = _WORD_CODES.get(size)
    if code is not None:
        return memoryview(data).cast(code).tolist()
    from_bytes = int.from_bytes
    return [from_bytes(data[i : i + size], "little") for i in range(0, length * size, size)]


def ones(length: int, size: int) -> int:
    """The packed polynomial 1 + x + ... + x^(length-1)."""
    return int.from_bytes((b"\x01" + bytes(size - 1)) * length, "little")


def product(values: list[int]) -> int:
    """Product of integers, multiplying the two smallest first (balanced sizes)."""
    if len(values) == 1:
        return values[0]
    heap = [(value.bit_length(), index, value) for index, value in enumerate(values)]
    heapq.heapify(heap)
    index = len(values)
    while len(heap) > 1:
        _, _, first = heapq.heappop(heap)
        _, _, second = heapq.heappop(heap)
        value = first * second
        heapq.heappush(heap, (value.bit_length(), index, value))
        index += 1
    return heap[0][2]


def check_work(length: int, bound: int, what: str) -> None:
    """Refuse a table of ``length`` counts up to ``bound`` that is too large."""
    if length > MAX_SPAN:
        raise DiceError(
            f"Too large to compute exactly: {what} would span {length:,} values "
            f"(at most {MAX_SPAN:,})."
        )
    bits = max(1, bound.bit_length())
    if length * bits > MAX_WORK_BITS:
        raise DiceError(
            f"Too large to compute exactly: {what} would need {length:,} counts of up to "
            f"{bits:,} bits (at most {MAX_WORK_BITS:,} bits in all)."
        )


# ----------------------------------------------------------------- dice sums


def kronecker_is_faster(length: int, size: int, dice: int) -> bool:
    """Whether `pow` on packed integers beats prefix sums for a sum of ``dice`` dice.

    Costs in nanoseconds fitted on CPython 3.13 measurements (integer arithmetic):
    Karatsuba on the packed table grows like bits**1.5 here; the prefix-sum method
    does ``dice`` passes of big-integer additions over half the table.
    """
    bits = length * size * 8
    kronecker = 2000 + bits * math.isqrt(bits) * 38 // 1000
    prefix = dice * (800 + (length + 1) // 2 * (45 + size * 4 // 10))
    return kronecker <= prefix


def dice_sum_counts(dice: Sequence[tuple[int, int]]) -> list[int]:
    """Counts of the sum of dice given as (sides, number) pairs, offset = all the dice.

    Sides and numbers are at least 1.  The table is symmetric.
    """
    dice = [(sides, number) for sides, number in dice if sides > 1]
    if not dice:
        return [1]
    if len(dice) == 1 and dice[0][1] == 1:
        return [1] * dice[0][0]
    length = 1 + sum(number * (sides - 1) for sides, number in dice)
    number_of_dice = sum(number for _, number in dice)
    total = math.prod(sides**number for sides, number in dice)
    # A count is at most max(coefficients of one die) * (rolls of all the others).
    size = slot_bytes(total // max(sides for sides, _ in dice))
    if kronecker_is_faster(length, size, number_of_dice):
        packed = product([ones(sides, size) ** number for sides, number in dice])
        return unpack(packed, length, size)
    return dice_sum_by_prefix_sums(dice, length, number_of_dice)


def dice_sum_by_prefix_sums(dice: Sequence[tuple[int, int]], length: int, number: int) -> list[int]:
    """prod (1 - x^s)^n / (1 - x)^N as power series mod x^half, then mirrored."""
    half = (length + 1) // 2
    row = [0] * half
    row[0] = 1
    for sides, count in dice:
        if sides >= half:
            continue  # (1 - x^s)^n is 1 modulo x^half
        new = row[:]
        coefficient = 1
        for j in range(1, count + 1):
            shift = j * sides
            if shift >= half:
                break
            coefficient = coefficient * (count - j + 1) // j
            signed = -coefficient if j & 1 else coefficient
            new[shift:] = map(add, new[shift:], map(mul, row[: half - shift], repeat(signed)))
        row = new
    for _ in range(number):
        row = list(accumulate(row))
    if length % 2:
        return row + row[-2::-1]
    return row + row[::-1]


# ----------------------------------------------------------------------- keep


def keep_highest_counts(n: int, s: int, k: int) -> list[int]:
    """Counts of the sum of the highest ``k`` of ``n`` dice with ``s`` sides (1 < k < n).

    The offset is ``k``.  Let ``t`` be the value of the k-th highest die and ``a < k``
    the number of dice above it.  Then the kept total is ``k*t + a`` plus the sum of
    ``a`` dice uniform on ``0..m-1`` (``m = s - t``), and the number of such rolls is
    ``c_a(t) = C(n, a) * sum_{j <= n-k} C(n-a, j) (t-1)^j`` times the counts of that
    sum (``j`` dice below ``t``, the others equal to it).  With
    ``1 + ... + x^(m-1) = (1 - x^m) / (1 - x)`` the table is ``sum_a P_a / (1 - x)^a``,
    where ``P_a = sum_t c_a(t) x^(k(t-1)+a) (1 - x^m)^a`` is sparse: expanding
    ``(1 - x^m)^a`` term by term, the coefficient ``(-1)^i C(a, i) c_a(t)`` lands at
    ``a + i(s-1) + (t-1)(k-i)``, a strided slice over ``t``.  Horner's rule in
    ``1 / (1 - x)`` then needs only prefix sums.  All of it is modulo ``x^length``,
    which is exact since the table is a polynomial of degree ``length - 1``.
    """
    length = k * (s - 1) + 1
    below = n - k + 1  # j = 0 .. n-k dice below t
    direct = [below <= k - a for a in range(k)]  # else use t^(n-a) minus the rest
    # columns[j][t-1] = (t-1)^j for t = 1..s
    top = n if not all(direct) else below - 1
    columns = [[1] * s]
    for _ in range(top):
        columns.append(list(map(mul, columns[-1], range(s))))
    # pieces[a]: the strided slices of P_a, added onto the running Horner sum.
    pieces: list[list[tuple[slice, list[int]]]] = []
    for a in range(k):
        if direct[a]:
            terms = range(below)
            weights = [0] * s
        else:
            terms = range(below, n - a + 1)
            weights = [*columns[n - a][1:], s ** (n - a)]  # t^(n-a)
        for j in terms:
            factor = math.comb(n - a, j)
            if not direct[a]:
                factor = -factor
            weights = list(map(add, weights, map(mul, columns[j], repeat(factor))))
        choose = math.comb(n, a)
        if choose != 1:
            weights = list(map(mul, weights, repeat(choose)))
        slices = []
        for i in range(a + 1):
            start = a + i * (s - 1)
            stride = k - i
            if start >= length:
                break
            steps = min(s, (length - 1 - start) // stride + 1)
            window = slice(start, start + (steps - 1) * stride + 1, stride)
            coefficient = (-1) ** i * math.comb(a, i)
            values = weights[:steps]
            if coefficient != 1:
                values = list(map(mul, values, repeat(coefficient)))
            slices.append((window, values))
        pieces.append(slices)
    result = [0] * length
    for a in range(k - 1, -1, -1):
        if a < k - 1:
            result = list(accumulate(result))
        for window, values in pieces[a]:
            result[window] = map(add, result[window], values)
    return result


# ---------------------------------------------------------------- distribution


def trim(offset: int, counts: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    start = 0
    end = len(counts)
    while start < end and not counts[start]:
        start += 1
    while end > start and not counts[end - 1]:
        end -= 1
    return offset + start, tuple(counts[start:end])


def convolve(parts: Sequence[tuple[int, Sequence[int], int, int]]) -> tuple[int, list[int], int]:
    """Sum of independent parts (offset, counts, total, times): one Kronecker product.

    A part with ``times > 1`` is added to itself that many times (a power).
    """
    if len(parts) == 1 and parts[0][3] == 1:
        offset, counts, total, _ = parts[0]
        return offset, list(counts), total
    offset = sum(part[0] * part[3] for part in parts)
    length = 1 + sum((len(part[1]) - 1) * part[3] for part in parts)
    total = math.prod(part[2] ** part[3] for part in parts)
    widest = max(parts, key=lambda part: len(part[1]))
    # Every count of every partial product is at most max(one copy of the widest part's
    # counts) * (the totals of all the other copies).
    bound = max(widest[1]) * (total // widest[2])
    check_work(length, bound, "the sum")
    size = slot_bytes(bound)
    packed = product([pack(counts, size) ** times for _, counts, _, times in parts])
    return offset, unpack(packed, length, size), total
