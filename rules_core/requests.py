"""One typed request per calculator, built and validated the same way for every caller.

The command line (its options collect strings), the calculator pages' worker and the
build-time prerender all call `Request.from_inputs(mapping of strings)`: the same inputs
give the same request, the same refusals and so the same answer. A missing key reads as
a blank field. Refusals are data: `InputErrors.errors` maps a field name to one
sentence; a field or calculator the selected system's text does not define raises that
system's `NotDefined`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, ClassVar, Self

from rules_core.dice import DiceError
from rules_core.dice import parse as parse_dice
from rules_core.fields import Field, FieldError, Requires, read
from rules_core.mechanics.damage import parse_for
from rules_core.systems import get_system, system_slugs

# The key of InputErrors for what a request still lacks as a whole, no one field's (a
# fight with no opponent yet): not a value refused, a question not yet complete, said
# where the answer is.
WHOLE = ""


class InputErrors(ValueError):
    """Values their fields cannot take: field name -> one sentence; or, under WHOLE, what
    the request still lacks, with `notes` beside the fields that would give it (field name
    -> one sentence, said in a quieter voice than a refusal)."""

    def __init__(self, errors: dict[str, str], notes: dict[str, str] | None = None) -> None:
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()))
        self.errors = errors
        self.notes = notes or {}


def one_line(message: object) -> str:
    """A message as one line: control characters shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


@cache  # the systems are compiled data: read their titles once
def system_field() -> Field:
    """The system chosen; the form starts on the first of content/systems.yml."""
    return Field(
        "system",
        "System",
        "system",
        default=system_slugs()[0],
        choices=tuple((slug, get_system(slug).title) for slug in system_slugs()),
        option="--system",
    )


# ------------------------------------------------------------------ building a request


def _read_all(
    fields_: tuple[Field, ...], inputs: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields_:
        raw = inputs.get(field.name)
        try:
            values[field.name] = read(field, "" if raw is None else str(raw))
        except FieldError as error:
            errors[field.name] = one_line(error)
            values[field.name] = None
    return values, errors


def _check_rules(
    request: type[Request], fields_: tuple[Field, ...], inputs: Mapping[str, Any], slug: str
) -> None:
    """The calculator's rule, then each set field's rule: the system's own refusal."""
    system = get_system(slug)
    if request.RULE is not None and not request.RULE.met(system):
        raise request.RULE.refusal(system)
    for field in fields_:
        raw = inputs.get(field.name)
        text = "" if raw is None else str(raw).strip()
        if field.requires is not None and field.is_set(text) and not field.requires.met(system):
            raise field.requires.refusal(system)


def _dice_errors(
    fields_: tuple[Field, ...], values: dict[str, Any], slug: str | None
) -> dict[str, str]:
    """Parse each dice field as the rules core will, so a bad roll is refused at its field."""
    system = get_system(slug) if slug else None
    errors: dict[str, str] = {}
    for field in fields_:
        text = values.get(field.name)
        if field.kind != "dice" or not text:
            continue
        given = {"weapon_die": values.get("weapon"), "level": values.get("level")}
        try:
            if system is None:
                parse_dice(text, **given)
            else:
                parse_for(system, text, **given)
        except DiceError as error:
            errors[field.name] = one_line(error)
    return errors


@dataclass(frozen=True)
class Request:
    """What every calculator's request shares: its name, fields and the rule it needs."""

    NAME: ClassVar[str]
    TITLE: ClassVar[str]
    RULE: ClassVar[Requires | None] = None
    PRIMARY: ClassVar[str]  # the field an error belongs to when it names none
    MAX_ROWS: ClassVar[int] = 0  # how many times `row_fields` may repeat (0: no rows)
    FORM_ROWS: ClassVar[int] = 0  # the rows the form shows; the command line takes MAX_ROWS
    ROW_KEY: ClassVar[str] = ""  # the field whose presence gives a row: "m{row}_count"

    @classmethod
    def row_fields(cls, row: int) -> tuple[Field, ...]:
        """The fields of the row-th repeated group (a monster's level, rank and count)."""
        return ()

    @classmethod
    def fields_before_rows(cls) -> tuple[Field, ...]:
        """A request with rows: the fields that come once, before the repeated groups."""
        raise NotImplementedError

    @classmethod
    @cache
    def fields_with_rows(cls, rows: int) -> tuple[Field, ...]:
        """A request with rows: its fields with `rows` repeated groups."""
        return (
            *cls.fields_before_rows(),
            *(field for row in range(1, rows + 1) for field in cls.row_fields(row)),
        )

    @classmethod
    def fields_for(cls, inputs: Mapping[str, Any]) -> tuple[Field, ...]:
        """The form's fields, and the rows the inputs give beyond the form's."""
        if not cls.MAX_ROWS:
            return cls.form_fields()
        rows = cls.FORM_ROWS
        while rows < cls.MAX_ROWS and cls.ROW_KEY.format(row=rows + 1) in inputs:
            rows += 1
        return cls.fields_with_rows(rows)

    @classmethod
    def form_fields(cls) -> tuple[Field, ...]:
        """The form's fields. Fixed by the rules data: a request without rows caches its own."""
        if not cls.MAX_ROWS:
            raise NotImplementedError
        return cls.fields_with_rows(cls.FORM_ROWS)

    @classmethod
    def from_inputs(cls, inputs: Mapping[str, Any]) -> Self:
        """Read, check against the system's rules, and build; raises InputErrors or NotDefined."""
        fields_ = cls.fields_for(inputs)
        values, errors = _read_all(fields_, inputs)
        slug = values.get("system")
        errors.update(_dice_errors(fields_, values, slug))
        if errors:
            raise InputErrors(errors)
        if slug is not None:
            _check_rules(cls, fields_, inputs, slug)
        return cls.from_values(values)

    def notes(self) -> dict[str, str]:
        """Field -> a sentence shown beside it with the answer, which it does not hold up
        (a fight's row left out until it is complete). Most requests have none."""
        return {}

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        names = {f.name for f in fields(cls)}
        return cls(**{name: value for name, value in values.items() if name in names})
