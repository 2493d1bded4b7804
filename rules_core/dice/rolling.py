"""Rolling an expression with a given random source (seeded, so a roll reproduces)."""

from __future__ import annotations

from random import Random

from rules_core.dice.expressions import Expression

# ---------------------------------------------------------------------- rolling


def roll(expr: Expression, rng: Random) -> tuple[int, list[list[int]]]:
    """Roll an expression with ``rng``: the total and the dice of each term.

    One list per term, in order (empty for a number).  A group that keeps dice lists
    its kept dice first, then the dropped ones (each in the order rolled), so the
    first ``term.keep`` entries are the ones that count.  A d% die is reported as its
    value 1..100.
    """
    total = 0
    dice: list[list[int]] = []
    for term in expr.terms:
        if not term.is_dice:
            total += term.sign * term.constant
            dice.append([])
            continue
        rolled = [rng.randint(1, term.sides) for _ in range(term.count)]
        if term.keep is None:
            dice.append(rolled)
            total += term.sign * sum(rolled) * term.factor
            continue
        direction = -1 if term.keep_highest else 1  # among equal dice the earlier is kept
        order = sorted(range(term.count), key=lambda i: (direction * rolled[i], i))
        chosen = set(order[: term.keep])
        kept = [rolled[i] for i in range(term.count) if i in chosen]
        dropped = [rolled[i] for i in range(term.count) if i not in chosen]
        dice.append(kept + dropped)
        total += term.sign * sum(kept)
    return total, dice
