"""The calculators' input fields: how each one reads a string, and for which systems it applies.

A field applies to a system when that system's compiled rules define what the field
feeds (`Requires`), never because of the system's slug: a new game gets the right
form from its rules.yml alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any

from rules_core.dice import MAX_SIDES
from rules_core.errors import NotDefined
from rules_core.mechanics.situations import situations
from rules_core.numbers import read_whole, shown
from rules_core.rules.attack import Situation
from rules_core.systems import System, get_system, system_slugs

if TYPE_CHECKING:
    from rules_core.rules.dying import DyingOption

MAX_INPUT_LENGTH = 200
_DIE = re.compile(r"(?:1?d)?([0-9]{1,4})")
# Where a situations field finds its names: the attack's situations (by default), or the
# death saves' options.
ATTACK_SITUATIONS = ("attack", "situations")
DEATH_SAVE_OPTIONS = ("dying", "options")


class FieldError(ValueError):
    """A value its field cannot take; the message is one sentence for the user."""


@dataclass(frozen=True)
class Requires:
    """A rule a system's data must define for a field or a calculator to apply.

    `path` leads into the compiled rules (e.g. ("attack", "advantage")); with `values`,
    the value found there (a string or a list of strings) must be or hold one of them.
    `name` and `what` give the system's own NotDefined message when it does not.
    """

    path: tuple[str, ...]
    name: str
    what: str
    values: frozenset[str] = frozenset()

    def met(self, system: System) -> bool:
        value: Any = system.rules
        for key in self.path:
            if not isinstance(value, Mapping) or value.get(key) is None:
                return False
            value = value[key]
        if not self.values:
            return True
        # A name, a list of names, or a mapping keyed by name (damage.notation).
        found = (
            {value}
            if isinstance(value, str)
            else set(value)
            if isinstance(value, list | Mapping)
            else set()
        )
        return bool(found & self.values)

    def refusal(self, system: System) -> NotDefined:
        return system.not_defined(self.name, self.what)


@dataclass(frozen=True)
class Field:
    """One input of a calculator, declared once: its form box, command-line option and bounds."""

    name: str
    label: str
    kind: str  # system | int | dice | die | choice | check | situations | text
    _: KW_ONLY
    default: str = ""  # the value when none is given (the form's and the command line's)
    # A value to start from where the default is not one: the form shows it first, while the
    # command line asks for the value (or leaves an optional one out). E.g. an attack bonus.
    example: str = ""
    minimum: int | None = None
    maximum: int | None = None  # a text field's: its length (one shown back, a name)
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False  # blank means "not used"
    hint: str = ""
    # The command line's option, named in its messages: "--bonus"; "EXPR" for the positional
    # argument; flags for a choice ("--advantage/--disadvantage/--both", "--save"); one option
    # shared by several fields gives them all (see rules_core.cli).
    option: str = ""
    requires: Requires | None = None  # applies only where the system defines this rule
    more: bool = False  # rarely used: shown under "More options"
    # Fields of one group (a monster's level, rank and count) are shown side by side under
    # the group's name (a fieldset's legend), each labelled within it ("Level").
    group: str = ""
    unset: str = ""  # besides blank, the value that means "not used" (e.g. mode "normal")
    # A situations field's names and labels: where they are in each system's rules.
    source: tuple[str, ...] = ATTACK_SITUATIONS
    # A choice some systems' texts name and others' do not (an attack type "near"): the
    # systems that name it, so the form offers each system its own; a choice not listed
    # is every system's (e.g. "unspecified").
    choice_systems: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def initial(self) -> str:
        """What the form shows before anyone edits it."""
        return self.example or self.default

    def is_set(self, text: str) -> bool:
        return text not in ("", self.unset) and not (self.kind == "check" and text == "off")


def die_sides(text: str) -> int | None:
    """The sides of a weapon die written 'd8', '1d8' or '8'; None when it is not one."""
    die = _DIE.fullmatch(text.strip().lower())
    sides = int(die.group(1)) if die else 0
    return sides if 1 <= sides <= MAX_SIDES else None


def read(field: Field, text: str) -> Any:
    """The typed value of one field's text: None when blank and optional.

    Dice are returned as text: they are parsed with the system's notation and the
    request's weapon die and level, which other fields give.
    """
    value = text.strip()
    if len(value) > MAX_INPUT_LENGTH:
        raise FieldError(f"At most {MAX_INPUT_LENGTH} characters.")
    if field.kind == "check":
        if value not in ("", "on", "off"):
            raise FieldError("Tick or untick.")
        return value == "on"
    if field.kind == "situations":
        names = tuple(part.strip() for part in value.split(",") if part.strip())
        if not all(re.fullmatch(r"[a-z0-9-]{1,60}", name) for name in names):
            raise FieldError("Unknown situation.")
        return names
    if value == "":
        if field.optional:
            return None
        raise FieldError("Enter a value." if field.kind != "int" else "Enter a whole number.")
    if field.kind in ("system", "choice"):
        allowed = [choice for choice, _ in field.choices]
        if value not in allowed:
            raise FieldError(f"Choose one of {', '.join(allowed)}, not {shown(value)}.")
        return value
    if field.kind == "int":
        try:
            number = read_whole(value)
        except ValueError as error:
            raise FieldError(str(error)) from None
        low, high = field.minimum, field.maximum
        if low is not None and high is not None and not low <= number <= high:
            raise FieldError(f"Enter a number from {low} to {high}.")
        return number
    if field.kind == "text" and field.maximum is not None:
        # A text field given a length is shown back to the reader as it was typed (a name):
        # one short line, no control characters. (Other text fields are parsed further.)
        if len(value) > field.maximum:
            raise FieldError(f"At most {field.maximum} characters.")
        if not value.isprintable():
            raise FieldError("Use letters, digits, spaces and punctuation only.")
        return value
    if field.kind == "die":
        sides = die_sides(value)
        if sides is None:
            raise FieldError(f"A die looks like d8, not {shown(value)}.")
        return sides
    return value  # dice


def tiles(system: System, source: tuple[str, ...]) -> Mapping[str, Situation | DyingOption]:
    """A situations field's tiles in a system's rules, by name in the text's order: the
    attack's situations, or the death saves' options (none where the text has none)."""
    if source == ATTACK_SITUATIONS:
        return situations(system)
    if source == DEATH_SAVE_OPTIONS:
        # Only the death saves' form reads them: every other calculator's first answer
        # imports no typed death saves (a tenth of the import, System.dying).
        return system.dying.options if system.rules.get("dying") is not None else {}
    raise ValueError(f"No situations field reads {'.'.join(source)} of the rules.")


def situation_choices(
    source: tuple[str, ...] = ATTACK_SITUATIONS,
) -> dict[str, list[tuple[str, str, str]]]:
    """Each system's tiles at `source` (see `tiles`): the attack's situational modifiers,
    the death saves' options. Each as (name, label, side): whose situation it is,
    "attacker", "target" or "" (the attack's, and every death-save option)."""
    result = {}
    for slug in system_slugs():
        result[slug] = [
            (name, tile.label, (tile.side or "") if isinstance(tile, Situation) else "")
            for name, tile in tiles(get_system(slug), source).items()
        ]
    return result
