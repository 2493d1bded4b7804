"""Attack questions: the rules core against icepool on the same exact answers, in one run.

Prints, for each question, the best-of-N time of each and the ratio core / icepool
(target: at most 1 on every question). Run from the repository root:

    .venv/bin/python benchmarks/bench_core.py
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_dice import best_of  # clears icepool's caches before every call

from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.systems import get_system

REPEATS = 7
DEFENSES = range(5, 31)


def core_itu(advantage: bool, disadvantage: bool) -> list[tuple[Fraction, Fraction]]:
    system = get_system("into-the-unknown")
    return [
        (result.hit, result.crit)
        for defense in DEFENSES
        for result in [
            attack(
                system,
                AttackSetup(
                    bonus=5, defense=defense, advantage=advantage, disadvantage=disadvantage
                ),
            )
        ]
    ]


def icepool_itu(advantage: bool, disadvantage: bool) -> list[tuple[Fraction, Fraction]]:
    if advantage:
        natural = icepool.highest(icepool.d(20), icepool.d(20))
    elif disadvantage:
        natural = icepool.lowest(icepool.d(20), icepool.d(20))
    else:
        natural = icepool.d(20)
    answers = []
    for defense in DEFENSES:

        def outcome(n: int, defense: int = defense) -> int:
            if n == 1:
                return 0
            if n == 20:
                return 2
            return int(n + 5 >= defense)

        die = natural.map(outcome)
        answers.append((Fraction(die.probability(">=", 1)), Fraction(die.probability(2))))
    return answers


def core_3d6(situations: tuple[str, ...]) -> list[tuple[Fraction, Fraction]]:
    system = get_system("3d6-combat")
    return [
        (result.hit, result.crit)
        for defense in DEFENSES
        for result in [attack(system, AttackSetup(bonus=4, defense=defense, situations=situations))]
    ]


def icepool_3d6(situations: tuple[str, ...]) -> list[tuple[Fraction, Fraction]]:
    crit_from = 17 - len(situations)
    natural = 3 @ icepool.d(6)
    answers = []
    for defense in DEFENSES:

        def outcome(n: int, defense: int = defense) -> int:
            if n == 3:
                return 0
            if n >= crit_from:
                return 2
            return int(n + 4 >= defense)

        die = natural.map(outcome)
        answers.append((Fraction(die.probability(">=", 1)), Fraction(die.probability(2))))
    return answers


QUESTIONS = [
    (
        "d20 attacks, defenses 5-30",
        lambda: core_itu(False, False),
        lambda: icepool_itu(False, False),
    ),
    (
        "2d20kh1 attacks, defenses 5-30",
        lambda: core_itu(True, False),
        lambda: icepool_itu(True, False),
    ),
    (
        "2d20kl1 attacks, defenses 5-30",
        lambda: core_itu(False, True),
        lambda: icepool_itu(False, True),
    ),
    ("3d6 attacks, defenses 5-30", lambda: core_3d6(()), lambda: icepool_3d6(())),
    (
        "3d6 attacks, weak and vulnerable",
        lambda: core_3d6(("weak", "vulnerable")),
        lambda: icepool_3d6(("weak", "vulnerable")),
    ),
]


def main() -> int:
    print(f"icepool {icepool.__version__}, best of {REPEATS}")
    print(f"{'question':36} {'core ms':>9} {'icepool ms':>11} {'ratio':>7}")
    worst = 0.0
    for name, core, oracle in QUESTIONS:
        if core() != oracle():
            print(f"{name}: the core and icepool disagree", file=sys.stderr)
            return 1
        core_time, oracle_time = best_of(core, REPEATS), best_of(oracle, REPEATS)
        ratio = core_time / oracle_time
        worst = max(worst, ratio)
        print(f"{name:36} {core_time * 1e3:9.3f} {oracle_time * 1e3:11.3f} {ratio:7.2f}")
    print(f"worst ratio core/icepool: {worst:.2f} (target <= 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
