"""Command line: `python -m rules_core CALCULATOR ... [--json]`.

Each calculator's options are generated from its request's fields (`Field.option`), so a
new calculator needs nothing here. The options only collect strings into the same mapping
a calculator page sends; the request is built and checked by `rules_core.requests`, as
for the pages. The result prints as text or as one JSON object (probabilities and means
as exact fraction strings). Bad input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from itertools import zip_longest
from typing import Any, NoReturn

from rules_core.calculators import CALCULATORS, Calculator
from rules_core.dice import DiceError
from rules_core.errors import NotDefined, RulesError
from rules_core.fields import Field
from rules_core.requests import WHOLE, InputErrors, Request, one_line

Reader = Callable[[argparse.Namespace], dict[str, str | None]]
_BARE = "on"  # an option that takes a value, given without one (--resistance)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        # Our own wording for a subcommand: argparse's changed between Python patch
        # releases, and the browser's Python must print exactly what this one prints.
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {choices})"
            )


# ---------------------------------------------------------------------- fields -> options


def _flags(sub: argparse.ArgumentParser, option: str, field: Field) -> Reader:
    """A choice given by flags, one per choice: --advantage/--disadvantage/--both, --save."""
    labels = dict(field.choices)
    group = sub.add_mutually_exclusive_group()
    for flag in option.split("/"):
        group.add_argument(
            flag, dest=field.name, action="store_const", const=flag[2:], help=labels[flag[2:]]
        )
    sub.set_defaults(**{field.name: field.default})
    return lambda args: {field.name: getattr(args, field.name)}


def _switch(sub: argparse.ArgumentParser, option: str, field: Field) -> Reader:
    """A tick box as a flag that turns it from its default (--crit on, --odds-only off)."""
    sub.add_argument(option, dest=field.name, action="store_true", help=field.label)
    flagged = "off" if field.default == "on" else "on"
    return lambda args: {field.name: flagged if getattr(args, field.name) else field.default}


def _amount_or_bare(sub: argparse.ArgumentParser, option: str, fields: list[Field]) -> Reader:
    """An amount where the text takes one, the bare option where it only ticks a box
    (resistance by an amount, or resistance that halves): the request refuses the one the
    system lacks."""
    amount = next(field for field in fields if field.kind != "check")
    tick = next(field for field in fields if field.kind == "check")
    sub.add_argument(option, dest=amount.name, nargs="?", const=_BARE, metavar="N")

    def read(args: argparse.Namespace) -> dict[str, str | None]:
        value = getattr(args, amount.name)
        return {tick.name: "on"} if value == _BARE else {amount.name: value}

    return read


def _listed(sub: argparse.ArgumentParser, option: str, fields: list[Field]) -> Reader:
    """Several fields from one option, separated by commas: --scores 16,14,13,12,11,10."""
    metavar = ",".join(field.label.upper() for field in fields)
    required = not any(field.optional or field.default for field in fields)
    dest = fields[0].name
    sub.add_argument(option, dest=dest, required=required, metavar=metavar)

    def read(args: argparse.Namespace) -> dict[str, str | None]:
        text = getattr(args, dest)
        if text is None:
            return {}
        values = text.split(",")
        if len(values) != len(fields):
            example = ",".join(field.initial for field in fields)
            raise UsageError(
                f"{option}: give {len(fields)} values separated by commas ({metavar}), "
                f"e.g. {example}"
            )
        return {field.name: value for field, value in zip(fields, values, strict=True)}

    return read


def _option(sub: argparse.ArgumentParser, option: str, fields: list[Field]) -> Reader:
    field = fields[0]
    if not option.startswith("-"):  # the positional argument, e.g. EXPR
        sub.add_argument(field.name, metavar=option)
        return lambda args: {field.name: getattr(args, field.name)}
    if field.kind == "choice" and ("/" in option or option[2:] in dict(field.choices)):
        return _flags(sub, option, field)
    if field.kind == "check" and len(fields) == 1:
        return _switch(sub, option, field)
    if field.kind == "situations":
        sub.add_argument(option, dest=field.name, action="append", metavar="NAME", help=field.label)
        return lambda args: {field.name: ",".join(getattr(args, field.name) or ())}
    if len(fields) == 2 and sum(f.kind == "check" for f in fields) == 1:
        return _amount_or_bare(sub, option, fields)
    if len(fields) > 1:
        return _listed(sub, option, fields)
    # The system is checked by the request, as on the pages: argparse's wording changes
    # between Python releases, and the browser's Python must print what this one prints.
    required = field.kind == "system" or not (field.optional or field.default)
    sub.add_argument(
        option,
        dest=field.name,
        required=required,
        default=None if required else field.default or None,
        metavar=field.kind.upper() if field.kind == "system" else None,
        help=" ".join(part for part in (field.label, field.hint and f"({field.hint})") if part),
    )
    return lambda args: {field.name: getattr(args, field.name)}


def _rows(sub: argparse.ArgumentParser, request: type[Request]) -> Reader:
    """A repeated group of fields, one option each: --monster LEVEL:RANK[:COUNT]."""
    template = request.row_fields(1)
    option = template[0].option
    # The fields before the first with a default are needed; those after may be left out.
    needed = next((i for i, field in enumerate(template) if field.default), len(template))
    names = [field.label.upper() for field in template]
    metavar = ":".join(names[:needed]) + "".join(f"[:{name}]" for name in names[needed:])
    noun = template[0].group.rsplit(" ", 1)[0]
    help = f"{noun}, one an option: the parts in brackets may be left out"
    if template[-1].kind == "text":  # a name: split off last, so it may hold colons
        help += f"; the last, {template[-1].label.lower()}, is plain text"
    sub.add_argument(option, dest="rows", action="append", metavar=metavar, help=help)

    def read(args: argparse.Namespace) -> dict[str, str | None]:
        given = args.rows or ()
        if len(given) > request.MAX_ROWS:
            raise UsageError(f"{option}: at most {request.MAX_ROWS}")
        inputs: dict[str, str | None] = {}
        for row, text in enumerate(given, start=1):
            # The last field takes the rest, colons and all (a name "Orc: the big one").
            parts = text.split(":", len(template) - 1)
            fields = request.row_fields(row)
            if not needed <= len(parts) <= len(fields):
                example = ":".join(field.initial for field in template)
                raise UsageError(f"{option}: give {metavar}, e.g. {example}")
            for field, part in zip_longest(fields, parts):
                # A part left out or left empty takes the field's default (COUNT: 1).
                inputs[field.name] = (part or "").strip() or field.default
        return inputs

    return read


def _command(commands: Any, calculator: Calculator[Any, Any]) -> None:
    request = calculator.request
    sub = commands.add_parser(
        calculator.name, help=calculator.summary, description=calculator.summary
    )
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    shared: dict[str, list[Field]] = {}
    for field in request.form_fields():
        if not (field.group and request.MAX_ROWS):  # rows come from their own option
            shared.setdefault(field.option, []).append(field)
    readers = [_option(sub, option, fields) for option, fields in shared.items()]
    if request.MAX_ROWS:
        readers.append(_rows(sub, request))
    sub.set_defaults(calculator=calculator, readers=readers)


# Built once: `python -m rules_core` calls main() once, but a caller in one process may call
# it thousands of times (the tests do), and the parser, the same for every call, is most of
# a call's time. It keeps nothing between calls: each parse makes its own namespace.
@functools.cache
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rules_core", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for calculator in CALCULATORS.values():
        _command(commands, calculator)
    return parser


# ---------------------------------------------------------------------- running


def _field_errors(request: type[Request], inputs: dict[str, Any], error: InputErrors) -> str:
    """Each refused field as the option that gave it: '--score: Enter a whole number ...';
    what the request lacks as a whole as it is, then the notes of the options that would
    give it ('--combatant: Needed to count Combatant 3.')."""
    options = {field.name: field.option for field in request.fields_for(inputs)}
    return "; ".join(
        f"{options.get(name) or name}: {message}" if name != WHOLE else message
        for name, message in (*error.errors.items(), *error.notes.items())
    )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        given: dict[str, Any] = {}
        for read in args.readers:
            given.update(read(args))
        payload, text = _run(args.calculator, given)
    except NotDefined as error:
        where = "; ".join(f"{citation} ({citation.url})" for citation in error.citations)
        print(f"error: {one_line(error)}" + (f" See: {where}" if where else ""), file=sys.stderr)
        return 2
    except (UsageError, RulesError, DiceError, RuntimeError) as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except (LookupError, TypeError, AttributeError, ValueError) as error:
        # Only the compiled rules data can get here: every input error is one of the above.
        print(
            "error: the compiled rules data is malformed "
            f"({type(error).__name__}: {one_line(error)}); run `make data` and check "
            "content/<system>/rules.yml",
            file=sys.stderr,
        )
        return 2
    try:
        # Flushed here, so a reader that has gone is met here and not at the exit.
        print(json.dumps(payload, ensure_ascii=False) if args.json else "\n".join(text), flush=True)
    except BrokenPipeError:
        # The reader of the pipe has gone (`| head`, a pager quit early): the rest of the
        # answer is not wanted. Stop without a traceback; what Python still holds to write
        # goes nowhere (the recipe of Python's documentation, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def _run(
    calculator: Calculator[Any, Any], given: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    inputs = {key: value for key, value in given.items() if value is not None}
    request = calculator.request
    try:
        built = request.from_inputs(inputs)
    except InputErrors as error:
        raise UsageError(_field_errors(request, inputs, error)) from None
    result = calculator.run(built)
    return result.payload, result.text
