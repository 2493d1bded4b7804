"""Dice distributions: the rules core against icepool on the same exact questions, in one run.

For each question both compute the full exact distribution from scratch; the engine
from the expression text (``parse(text).distribution()``, parsing included), icepool
from its own dice objects.  Each side's time is the best of several repetitions
(time.perf_counter), with icepool's caches cleared before every call, so neither side
reuses earlier work (the engine keeps no caches).  The results are checked equal.
Prints each question's ratio engine / icepool (target: at most 1) and the worst ratio,
then the engine alone on expressions at its input bounds.  Run from the repository root:

    .venv/bin/python benchmarks/bench_dice.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import icepool
from icepool import d

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules_core.dice import Distribution, parse

REPEATS = 25
SLOW_REPEATS = 3  # for a question where icepool takes longer than SLOW seconds
SLOW = 0.1
FAST = 0.001  # questions faster than this get 4 * REPEATS repetitions

# (expression text, the same question built with icepool)
QUESTIONS: list[tuple[str, Callable[[], icepool.Die]]] = [
    ("1d6", lambda: d(6)),
    ("2d6", lambda: 2 @ d(6)),
    ("3d6", lambda: 3 @ d(6)),
    ("1d20+5", lambda: d(20) + 5),
    ("d%", lambda: d(100)),
    ("3d4+3", lambda: 3 @ d(4) + 3),
    ("5d8", lambda: 5 @ d(8)),
    ("8d6", lambda: 8 @ d(6)),
    ("10d10+5", lambda: 10 @ d(10) + 5),
    ("12d10", lambda: 12 @ d(10)),
    ("20d6", lambda: 20 @ d(6)),
    ("36d10", lambda: 36 @ d(10)),
    ("40d12", lambda: 40 @ d(12)),
    ("2d6+1d8+4", lambda: 2 @ d(6) + d(8) + 4),
    ("1d8-1d4", lambda: d(8) - d(4)),
    ("2d20kh1", lambda: d(20).highest(2, 1)),
    ("2d20kl1", lambda: d(20).lowest(2, 1)),
    ("4d6kh3", lambda: d(6).highest(4, 3)),
    ("8d6kh3", lambda: d(6).highest(8, 3)),
    ("6d6kl3", lambda: d(6).lowest(6, 3)),
    ("10d10kh5", lambda: d(10).highest(10, 5)),
    ("4d6kh3+4d6kh3+2", lambda: d(6).highest(4, 3) + d(6).highest(4, 3) + 2),
    ("3d8kh2+1d6", lambda: d(8).highest(3, 2) + d(6)),
]

# Expressions at the engine's input bounds (engine alone; icepool takes seconds on some).
AT_BOUNDS = [
    "100d6",
    "80d8",
    "60d12",
    "14d100",
    "12d6+12d8+12d10+12d12",
    "40d6kh20",
    "20d60kh19",
    "20d20kh10+20d20kh10",
    "4d6kh3+60d6",
]


_CLEARERS: list[Callable[[], None]] = []
_MODULES_SEEN = 0


def _find_clearers() -> list[Callable[[], None]]:
    """Every cache icepool keeps between calls, as functions that clear it.

    functools caches (icepool.d, icepool.z, PoolSource._new_raw, ...), the evaluators'
    dungeon caches (sum_evaluator._cache, ...) and the binomial rows in icepool.math.
    """
    base = icepool.evaluator.multiset_evaluator_base.MultisetEvaluatorBase
    clearers: list[Callable[[], None]] = [icepool.math.comb_row_cache.clear]
    for name, module in list(sys.modules.items()):
        if not name.startswith("icepool"):
            continue
        for value in list(vars(module).values()):
            if hasattr(value, "cache_clear"):
                clearers.append(value.cache_clear)
            elif isinstance(value, type) and value.__module__ == name:
                for member in vars(value).values():
                    function = getattr(member, "__func__", member)
                    if hasattr(function, "cache_clear"):
                        clearers.append(function.cache_clear)
            elif isinstance(value, base):
                clearers.append(lambda value=value: vars(value).pop("_cache", None))
    return clearers


def clear_icepool_caches() -> None:
    """Clear icepool's caches, so that every call computes from scratch.

    Dice are rebuilt through icepool.d after clearing, so their per-die caches
    (Die._sum_cache and other cached properties) start empty as well.  The list of
    caches is collected once, and again whenever more modules have been imported.
    """
    global _MODULES_SEEN
    if len(sys.modules) != _MODULES_SEEN:
        _CLEARERS[:] = _find_clearers()
        _MODULES_SEEN = len(sys.modules)
    for clear in _CLEARERS:
        clear()


def best_of(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        clear_icepool_caches()
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def as_exact(die: icepool.Die) -> dict[int, Fraction]:
    denominator = die.denominator()
    return {outcome: Fraction(q, denominator) for outcome, q in die.items() if q}


def engine(text: str) -> Distribution:
    return parse(text).distribution()


def main() -> None:
    print(f"{'question':<18} {'engine ms':>10} {'icepool ms':>11} {'ratio':>7}")
    worst = (0.0, "")
    for text, build in QUESTIONS:
        clear_icepool_caches()
        if dict(engine(text).items()) != as_exact(build()):
            raise SystemExit(f"{text}: the engine and icepool disagree")
        clear_icepool_caches()
        start = time.perf_counter()
        build()
        elapsed = time.perf_counter() - start
        repeats = SLOW_REPEATS if elapsed > SLOW else REPEATS if elapsed > FAST else 4 * REPEATS
        ours = best_of(lambda text=text: engine(text), repeats)
        theirs = best_of(build, repeats)
        ratio = ours / theirs
        worst = max(worst, (ratio, text))
        print(f"{text:<18} {ours * 1e3:>10.3f} {theirs * 1e3:>11.3f} {ratio:>7.3f}")
    print(f"worst ratio engine / icepool: {worst[0]:.3f} ({worst[1]})")

    print()
    print(f"{'at the bounds':<24} {'engine ms':>10}")
    for text in AT_BOUNDS:
        print(f"{text:<24} {best_of(lambda text=text: engine(text), 5) * 1e3:>10.3f}")


if __name__ == "__main__":
    main()
