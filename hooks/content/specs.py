"""The vocabulary of the rules.yml schema: each spec checks one value (FILE:LINE and a fix
when it is wrong) and describes it in a few words for content/README.md.

Specs: Integer, Boolean, Text, OneOf, Dice, FractionText, PrintedRange, Range, ListOf,
MapOf, Section, SectionOrName, Citations (page#anchor that must resolve to a heading),
TableName (a table in tables/; the columns named under the same section, or below it,
belong to it), ColumnName, KeyOf (a key of a sibling mapping).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, Protocol

from hooks.content.loader import System, resolve_target, target_hint
from hooks.content.quotes import quote_problem
from hooks.content.tables import Table
from hooks.content.yaml_lines import (
    ContentError,
    LineDict,
    LineList,
    did_you_mean,
    one_of,
)
from rules_core.dice import parse as parse_dice

CITATION_EXAMPLE = "'- see: combat#cover' with 'quote: \"the sentence, word for word\"'"


@dataclass(frozen=True)
class Where:
    """Where a value sits: its file and line, its key path, and the table in force."""

    system: System
    path: Path
    line: int | None
    key: str
    table: Table | None = None
    parent: LineDict | None = None

    def at(self, key: str, line: int | None, parent: LineDict | None = None) -> Where:
        name = f"{self.key}.{key}" if self.key else key
        return replace(self, key=name, line=line, parent=parent)

    def fail(self, message: str) -> ContentError:
        return ContentError(self.path, self.line, f"'{self.key}' {message}")


class Spec(Protocol):
    def check(self, value: Any, where: Where) -> None: ...

    def describe(self) -> str:
        """What the value is, in a few words of Markdown (content/README.md is made of them)."""
        ...


def _shown(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else repr(value)


@dataclass(frozen=True)
class Integer:
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any, where: Where) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise where.fail(
                f"must be a whole number, not {_shown(value)}: write digits without quotes, "
                f"e.g. {where.key.rsplit('.', 1)[-1]}: {self.example()}"
            )
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            raise where.fail(f"must be {self.bounds()}, not {value}")

    def example(self) -> int:
        return self.minimum if self.minimum is not None else 0

    def describe(self) -> str:
        if self.minimum is None and self.maximum is None:
            return "whole number"
        if self.maximum is None:
            return f"whole number >= {self.minimum}"
        return f"whole number {self.bounds()}"

    def bounds(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"from {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"{self.minimum} or more"
        return f"{self.maximum} or less"


@dataclass(frozen=True)
class Boolean:
    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, bool):
            raise where.fail(f"must be true or false, not {_shown(value)}")

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Text:
    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, str) or not value.strip():
            raise where.fail(
                f"must be non-empty text, not {_shown(value)}: put it in double quotes if "
                "YAML reads it as something else (a number, yes/no, null, a list)"
            )

    def describe(self) -> str:
        return "text"


@dataclass(frozen=True)
class OneOf:
    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", values)

    def check(self, value: Any, where: Where) -> None:
        if value not in self.values:
            raise where.fail(f"is {_shown(value)}" + one_of(value, "allowed", self.values))

    def describe(self) -> str:
        return "one of " + ", ".join(f"`{value}`" for value in self.values)


@dataclass(frozen=True)
class Dice:
    """A dice expression the rules core reads, such as 1d20 or 4d6kh3."""

    def check(self, value: Any, where: Where) -> None:
        Text().check(value, where)
        try:
            parse_dice(str(value))
        except ValueError as error:
            raise where.fail(f"is not a dice expression ({error}): write e.g. 1d20") from None

    def describe(self) -> str:
        return "dice, e.g. `1d20`"


@dataclass(frozen=True)
class FractionText:
    """A positive fraction as text, such as "1/2" (YAML would read 0.5 as a float)."""

    def check(self, value: Any, where: Where) -> None:
        try:
            ok = isinstance(value, str) and Fraction(value) > 0
        except (ValueError, ZeroDivisionError):
            ok = False
        if not ok:
            raise where.fail(
                f'must be a positive fraction as text, such as "1/2", not {_shown(value)}'
            )

    def describe(self) -> str:
        return 'fraction as text, e.g. `"1/2"`'


PRINTED_RANGE = re.compile(r"^\s*\d+\s*(-\s*\d+\s*)?$")


@dataclass(frozen=True)
class PrintedRange:
    """A range of whole numbers as text: "11-20" or "7"."""

    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, str) or not PRINTED_RANGE.match(value):
            raise where.fail(f'must be a range as text, such as "11-20", not {_shown(value)}')

    def describe(self) -> str:
        return 'range as text, e.g. `"11-20"`'


@dataclass(frozen=True)
class Range:
    """[low, high]: two whole numbers, low <= high."""

    minimum: int | None = None

    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, list) or len(value) != 2:
            raise where.fail(f"must be [low, high], e.g. [1, 30], not {_shown(value)}")
        for item in value:
            Integer(self.minimum).check(item, where)
        if value[0] > value[1]:
            raise where.fail(f"must be [low, high] with low <= high, not {list(value)}")

    def describe(self) -> str:
        return "`[low, high]`" + ("" if self.minimum is None else f", >= {self.minimum}")


@dataclass(frozen=True)
class ListOf:
    item: Spec
    min_items: int = 0

    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, list):
            raise where.fail(f"must be a list ('- item' lines, or [a, b]), not {_shown(value)}")
        if len(value) < self.min_items:
            raise where.fail(f"must list at least {self.min_items} item(s)")
        lines = value.item_lines if isinstance(value, LineList) else [where.line] * len(value)
        for index, (item, line) in enumerate(zip(value, lines, strict=True)):
            self.item.check(item, replace(where, key=f"{where.key}[{index}]", line=line))

    def describe(self) -> str:
        return f"list of {self.item.describe()}"

    def skeleton(self) -> Any:
        return {"[]": skeleton(self.item)}


def _mapping(value: Any, where: Where) -> LineDict:
    if not isinstance(value, LineDict):
        raise where.fail(f"must be a mapping of 'key: value' lines, not {_shown(value)}")
    return value


@dataclass(frozen=True)
class MapOf:
    """A mapping whose keys are names the content chooses (situations, ranks...)."""

    value: Spec
    key_pattern: str = r"^[a-z0-9][a-z0-9_-]*$"
    key: Spec | None = None  # what each key must name, beyond its pattern (an attack type)

    def check(self, value: Any, where: Where) -> None:
        mapping = _mapping(value, where)
        for key, item in mapping.items():
            inner = where.at(str(key), mapping.line_of(str(key)), mapping)
            if not re.match(self.key_pattern, str(key)):
                raise inner.fail("is not a name: use lower case letters, digits, - and _")
            if self.key is not None:
                self.key.check(key, inner)
            self.value.check(item, inner)

    def describe(self) -> str:
        name = "name" if self.key is None else self.key.describe()
        return f"{{{name}: {self.value.describe()}}}"

    def skeleton(self) -> Any:
        return {"*": skeleton(self.value)}


@dataclass(frozen=True)
class Section:
    """A mapping with known keys; "key?" marks an optional one.

    `together` lists groups of keys that are given all or none (a table and its columns);
    `any_of`, groups of optional keys of which one at least is given (the sentences cited).
    """

    fields: dict[str, Spec]
    together: tuple[tuple[str, ...], ...] = ()
    any_of: tuple[tuple[str, ...], ...] = ()
    what: str = field(default="")

    def keys(self) -> dict[str, bool]:
        """Each key and whether it is required."""
        return {name.removesuffix("?"): not name.endswith("?") for name in self.fields}

    def spec(self, key: str) -> Spec:
        return self.fields.get(key) or self.fields[f"{key}?"]

    def describe(self, *, braces: bool = True) -> str:
        keys = ", ".join(_described(name, spec) for name, spec in self.fields.items())
        groups = "".join(
            "; all or none of " + ", ".join(f"`{key}`" for key in group) for group in self.together
        ) + "".join(
            "; one at least of " + ", ".join(f"`{key}`" for key in group) for group in self.any_of
        )
        return f"{{{keys}{groups}}}" if braces else keys + groups

    def skeleton(self) -> Any:
        return {name.removesuffix("?"): skeleton(spec) for name, spec in self.fields.items()}

    def add(self, key: str, spec: Spec) -> None:
        """Add a key (a section of rules.yml, or a field of a section)."""
        if key.removesuffix("?") in self.keys():
            raise ValueError(f"the schema already has '{key}'")
        self.fields[key] = spec

    def check(self, value: Any, where: Where) -> None:
        mapping = _mapping(value, where)
        keys = self.keys()
        inside = f"'{where.key}'" if where.key else "rules.yml"
        for key in mapping:
            if key not in keys:
                raise ContentError(
                    where.path,
                    mapping.line_of(str(key)),
                    f"unknown key '{key}' in {inside}"
                    + one_of(key, "allowed", keys)
                    + (self.what and f" ({self.what})"),
                )
        for key, required in keys.items():
            if required and key not in mapping:
                raise ContentError(
                    where.path,
                    where.line or mapping.line,
                    f"{inside} is missing the key '{key}': add a '{key}:' line",
                )
        for group in self.together:
            given = [key for key in group if key in mapping]
            if given and len(given) != len(group):
                missing = [key for key in group if key not in mapping]
                raise ContentError(
                    where.path,
                    where.line or mapping.line,
                    f"{inside} gives {', '.join(given)} but not {', '.join(missing)}: "
                    "they go together, give all of them or none",
                )
        for group in self.any_of:
            if not any(key in mapping for key in group):
                raise ContentError(
                    where.path,
                    where.line or mapping.line,
                    f"{inside} needs one at least of {', '.join(group)}: add a '{group[0]}:' line",
                )
        # The table first: the columns named beside it or below it are its columns.
        scope = where
        if "table" in mapping and isinstance(self.spec("table"), TableName):
            table_where = where.at("table", mapping.line_of("table"), mapping)
            self.spec("table").check(mapping["table"], table_where)
            scope = replace(where, table=where.system.tables[str(mapping["table"])])
        for key, item in mapping.items():
            if key == "table" and scope is not where:
                continue
            self.spec(str(key)).check(item, scope.at(str(key), mapping.line_of(str(key)), mapping))


@dataclass(frozen=True)
class SectionOrName:
    """Either a section, or the name of another section of rules.yml whose rule applies
    here too (saves: `advantage: checks`), so a rule the text states once is written once."""

    section: Section
    names: tuple[str, ...]

    def check(self, value: Any, where: Where) -> None:
        if isinstance(value, str):
            if value not in self.names:
                raise where.fail(
                    f"names {_shown(value)}, which is no section whose rule applies here"
                    + one_of(value, "allowed", self.names)
                )
            return
        self.section.check(value, where)

    def describe(self) -> str:
        names = " or ".join(f"`{name}`" for name in self.names)
        return f"{self.section.describe()}, or {names} (that section's rule)"

    def skeleton(self) -> Any:
        return self.section.skeleton()


@dataclass(frozen=True)
class Citations:
    """A list of citations, each a section ('page#anchor', or 'page') and the sentence
    there that the entry rests on, quoted word for word."""

    def check(self, value: Any, where: Where) -> None:
        if not isinstance(value, list) or not value:
            raise where.fail(f"must be a list of sections, each {CITATION_EXAMPLE}")
        lines = value.item_lines if isinstance(value, LineList) else [where.line] * len(value)
        for item, line in zip(value, lines, strict=True):
            here = replace(where, line=line)
            if not isinstance(item, LineDict | dict) or set(item) != {"see", "quote"}:
                raise here.fail(
                    f"lists {_shown(item)}: a citation has exactly 'see' (the section) and "
                    f"'quote' (the sentence it rests on): {CITATION_EXAMPLE}"
                )
            target, quote = item["see"], item["quote"]
            resolved = resolve_target(where.system, target) if isinstance(target, str) else None
            if resolved is None:
                raise here.fail(
                    f"cites '{target}', which is no page or heading of "
                    f"{where.system.slug}" + target_hint(where.system, str(target))
                )
            if isinstance(item, LineDict):
                here = replace(where, line=item.line_of("quote"))
            problem = (
                quote_problem(where.system, *resolved, quote)
                if isinstance(quote, str)
                else "the quote is text: put it in double quotes"
            )
            if problem:
                raise here.fail(f"quotes a sentence that is not in {target}: {problem}")

    def describe(self) -> str:
        return "citations: `see` (a section, e.g. `combat#cover`) and `quote` (its sentence)"


@dataclass(frozen=True)
class AttackTypeName:
    """One of the attack types the system's `attack.attack_types.names` lists."""

    def check(self, value: Any, where: Where) -> None:
        rules = where.system.rules or {}
        names = ((rules.get("attack") or {}).get("attack_types") or {}).get("names") or []
        if value not in names:
            raise where.fail(
                f"names {_shown(value)}, which is no attack type of attack.attack_types"
                + one_of(value, "types", names)
            )

    def describe(self) -> str:
        return "one of `attack.attack_types.names`"


@dataclass(frozen=True)
class NameOf:
    """A name given elsewhere in the same rules.yml, by the dotted path of the mapping whose
    keys are the names (attack.situations): what a situation confers, prevents or holds
    with, the death saves' option a rule depends on, the rank an ambiguity is about.
    A misspelt name would otherwise reach the rules core, which answers with an error."""

    path: str
    what: str  # "situation"
    LISTED: ClassVar[int] = 8  # more names than this: only the nearest are suggested

    def names(self, system: System) -> list[str]:
        value: Any = system.rules or {}
        for key in self.path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        return [str(name) for name in value] if isinstance(value, dict) else []

    def check(self, value: Any, where: Where) -> None:
        names = self.names(where.system)
        if isinstance(value, str) and value in names:
            return
        said = f"names {_shown(value)}, which is no {self.what} of {self.path}"
        if len(names) <= self.LISTED:
            raise where.fail(said + one_of(value, f"{self.what}s", names))
        nearest = did_you_mean(value, names)
        raise where.fail(
            said + (nearest or f": the {len(names)} {self.what}s are the keys under {self.path}")
        )

    def describe(self) -> str:
        return f"a key of `{self.path}`"


@dataclass(frozen=True)
class TableName:
    def check(self, value: Any, where: Where) -> None:
        tables = where.system.tables
        if not isinstance(value, str) or value not in tables:
            raise where.fail(
                f"names no table of tables/: {_shown(value)}" + one_of(value, "tables", tables)
            )

    def describe(self) -> str:
        return "table"


@dataclass(frozen=True)
class ColumnName:
    def check(self, value: Any, where: Where) -> None:
        table = where.table
        if table is None:
            raise where.fail("names a column, but no 'table' is given beside it or above it")
        if not isinstance(value, str) or value not in table.columns:
            raise where.fail(
                f"names no column of table '{table.name}': {_shown(value)}"
                + one_of(value, "columns", table.columns)
            )

    def describe(self) -> str:
        return "column"


@dataclass(frozen=True)
class KeyOf:
    """A key of the sibling mapping `sibling` (budget_rank: a key of ranks)."""

    sibling: str

    def check(self, value: Any, where: Where) -> None:
        choices = (where.parent.get(self.sibling) if where.parent else None) or {}
        if value not in choices:
            raise where.fail(
                f"is {_shown(value)}, which is no key of '{self.sibling}'"
                + did_you_mean(value, choices)
            )

    def describe(self) -> str:
        return f"a key of `{self.sibling}`"


def _described(name: str, spec: Spec) -> str:
    """`key` (what it holds); a section's keys follow it in braces. Citations and
    interpretations are everywhere: their names say enough (the prose explains them)."""
    if isinstance(spec, Citations) or name == "interpretation?":
        return f"`{name}`"
    if isinstance(spec, Section):
        return f"`{name}` {spec.describe()}"
    return f"`{name}` ({spec.describe()})"


def skeleton(spec: Spec) -> Any:
    """The keys a spec's value may hold, for the rules core to read by (its views refuse a
    key the schema does not have): a section's keys, "*" for any name, "[]" for a list's
    items; None for a plain value."""
    shape = getattr(spec, "skeleton", None)
    return shape() if shape is not None else None
