"""The game systems: each one's names and dice, and its rules as data (compiled from content/
at build time), each section typed when first read; and the loading of that data."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rules_core.errors import NotDefined, RulesError
from rules_core.views import RulesView, read_once

if TYPE_CHECKING:  # the typed sections, each imported when first read (a first answer
    # imports only what it reads: rules_core.rules, built on rules_core.citations)
    from rules_core.rules.attack import Attack
    from rules_core.rules.characters import (
        AbilityModifier,
        AbilityRoll,
        Encounter,
        Levels,
        PointBuy,
    )
    from rules_core.rules.checks import Checks, Saves
    from rules_core.rules.common import Note
    from rules_core.rules.damage import Damage
    from rules_core.rules.dying import Dying
    from rules_core.rules.fight import NotFollowed


@dataclass(frozen=True)
class System:
    """One game system: its names, its dice and its rules, as data (`rules`, the compiled
    sections) and typed (a property a section: read once, when first asked for, or the
    system's NotDefined naming what its text does say on the matter)."""

    slug: str
    title: str
    short_title: str
    dice: str
    rules: Mapping[str, Any]

    def defines(self, section: str) -> bool:
        """Whether the system's text has that section of rules (rules.yml's)."""
        return self.rules.get(section) is not None

    def rule(self, name: str, calculator: str) -> Mapping[str, Any]:
        """The rules for one calculator, or NotDefined naming what the text does say."""
        value: Mapping[str, Any] | None = self.rules.get(name)  # a section is a mapping
        if value is None:
            raise self.not_defined(name, calculator)
        return value

    def _typed[T](self, name: str, what: str, build: Callable[[Mapping[str, Any]], T]) -> T:
        return read_once(self.rule(name, what), build)

    @property
    def attack(self) -> Attack:
        from rules_core.rules.attack import Attack

        return self._typed("attack", "attack rolls", Attack.of)

    @property
    def damage(self) -> Damage:
        from rules_core.rules.damage import Damage

        return self._typed("damage", "damage", Damage.of)

    @property
    def checks(self) -> Checks:
        from rules_core.rules.checks import Checks

        return self._typed("checks", "checks", Checks.of)

    @property
    def saves(self) -> Saves:
        from rules_core.rules.checks import Saves

        return self._typed("saves", "saving throws", Saves.of)

    def roll_section(self, name: str) -> Checks | Saves:
        """The section a roll is made by, by its name ("checks" or "saves")."""
        return self.checks if name == "checks" else self.saves

    @property
    def dying(self) -> Dying:
        from rules_core.rules.dying import Dying

        return self._typed("dying", "death saves", Dying.of)

    @property
    def ability_modifier(self) -> AbilityModifier:
        from rules_core.rules.characters import AbilityModifier

        return self._typed("ability_modifier", "ability modifiers", AbilityModifier.of)

    @property
    def point_buy(self) -> PointBuy:
        from rules_core.rules.characters import PointBuy

        return self._typed("point_buy", "a point-buy method", PointBuy.of)

    @property
    def ability_roll(self) -> AbilityRoll:
        from rules_core.rules.characters import AbilityRoll

        return self._typed("ability_roll", "a method of rolling ability scores", AbilityRoll.of)

    @property
    def levels(self) -> Levels:
        from rules_core.rules.characters import Levels

        return self._typed("levels", "XP and levels", Levels.of)

    @property
    def encounter(self) -> Encounter:
        from rules_core.rules.characters import Encounter

        return self._typed("encounter", "an encounter budget", Encounter.of)

    @property
    def not_followed(self) -> tuple[NotFollowed, ...]:
        """The rules of the text that change a fight and that the fight does not follow."""
        from rules_core.rules.fight import not_followed

        section = self.rules.get("fight")
        return () if section is None else read_once(section, not_followed)

    def unsaid(self, name: str) -> Note | None:
        """What the text says of a rule it does not define (rules.yml's not_defined)."""
        from rules_core.rules.not_defined import unsaid_rules

        section = self.rules.get("not_defined")
        return None if section is None else read_once(section, unsaid_rules).get(name)

    def not_defined(self, name: str, what: str) -> NotDefined:
        said = self.unsaid(name)
        message = f"{self.title} does not define {what} in its text."
        if said is None:
            return NotDefined(message)
        return NotDefined(f"{message} {said.note}", list(said.cite))


DATA = Path(__file__).with_name("data") / "systems.json"


@runtime_checkable
class _DataLoader(Protocol):
    """A module loader that reads a file beside its modules (a folder's or a zip's)."""

    def get_data(self, path: str) -> bytes: ...


def _module_loader() -> _DataLoader:
    loader = __spec__.loader
    # Both loaders this package is imported by (from a folder, and in the browser from its
    # wheel as a zip archive) read data; a loader that cannot is no way to run the core.
    if not isinstance(loader, _DataLoader):
        raise RuntimeError(f"rules_core is imported by {loader!r}, which cannot read its data.")
    return loader


@cache
def _load() -> dict[str, Any]:
    """The compiled systems, by slug, in the order of content/systems.yml."""
    try:
        # Through the module's loader, which reads it from a folder or, in the browser,
        # from the wheel itself (imported as a zip archive, never unpacked).
        data = json.loads(_module_loader().get_data(str(DATA)).decode("utf-8"))
    except OSError:
        raise RuntimeError(
            "rules_core/data/systems.json is missing: run `make data` to compile content/"
        ) from None
    schema = data.get("schema")
    systems = {}
    for slug in data["order"]:
        entry = data["systems"][slug]
        # One view per system, kept: reading a rule read before is one dict lookup.
        rules = RulesView(entry["rules"], schema) if schema else entry["rules"]
        systems[slug] = {**entry, "rules": rules, "schema": schema}
    return systems


def forget_compiled_data() -> None:
    """Read systems.json afresh: every cached value of the rules core (the systems, the
    forms' choices) was computed from it. For a long-running process whose data was
    recompiled (the dev server after a rules.yml edit)."""
    for name, module in list(sys.modules.items()):
        if name != "rules_core" and not name.startswith("rules_core."):
            continue
        for value in list(vars(module).values()):
            owners = vars(value).values() if isinstance(value, type) else (value,)
            for owner in owners:
                function = getattr(owner, "__func__", owner)  # a cached classmethod's function
                if hasattr(function, "cache_clear"):
                    function.cache_clear()


def get_system(slug: str) -> System:
    systems = _load()
    if slug not in systems:
        known = ", ".join(systems)
        raise RulesError(f"Unknown system {slug!r} (known: {known}).")
    entry = systems[slug]
    rules = entry["rules"]
    if entry.get("schema") and isinstance(rules, Mapping) and not isinstance(rules, RulesView):
        rules = RulesView(rules, entry["schema"])  # data given by hand (the tests change some)
    return System(entry["slug"], entry["title"], entry["short_title"], entry["dice"], rules)


def system_slugs() -> tuple[str, ...]:
    """The systems' slugs, in the order of content/systems.yml (the compiled data's order)."""
    return tuple(_load())
