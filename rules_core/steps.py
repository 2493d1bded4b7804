"""Work in steps: a long calculation that can be watched, and stopped, between its steps.

A calculation that can take long (a fight, followed attack by attack) is a generator: it
yields a `Step` (how far it has got) between pieces of work and returns its answer. Whoever
runs it decides what happens between steps. The command line and the build run it through
(`finish`). The browser's worker tells the page how far it has got, and when the reader has
already changed the question it stops the work (closes the generator) instead of finishing
an answer nobody will read. Nothing outside the generator is changed before it returns, so
stopping at a step leaves nothing half done.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

__all__ = ["Step", "Steps", "at_once", "finish"]


@dataclass(frozen=True)
class Step:
    """How far a calculation has got: `done` of `total` (a fight: rounds)."""

    done: int
    total: int


type Steps[T] = Generator[Step, None, T]


def finish[T](steps: Steps[T]) -> T:
    """The calculation run through to its answer."""
    answer: list[T] = []

    def through() -> Generator[Step]:
        answer.append((yield from steps))

    for _ in through():
        pass
    return answer[0]


def at_once[T](value: T) -> Steps[T]:
    """An answer already worked out, as work of no steps."""
    yield from ()
    return value
