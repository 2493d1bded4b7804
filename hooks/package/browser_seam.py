"""The seam between the page's JavaScript and the rules core, written from the Python.

    python -m hooks.package.browser_seam [ROOT]

writes, under ROOT (the project, by default), the two files through which the browser's
code reads what the rules core declares, so that neither side holds a copy of the other's:

- `types/rules-core-web.d.ts`: the types of what the page sends the worker and gets back
  (`rules_core.web`'s Request, Answer and Work), which the JavaScript imports through JSDoc
  and `tsc` checks it against (`make lint`);
- `docs/assets/javascripts/rules-core-limits.mjs`: the limits the page shares with the
  Python (a fight's rows, a name's and any value's length), a module the page imports.

Both are committed (the site is built from the repository as it is, no build step for the
JavaScript); `make setup` (its step `make seam`) writes them again from the Python, a
file left as it was when nothing changed, and tests/test_browser_seam.py fails where a
committed one differs from what the Python declares now.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import sys
import textwrap
import types
import typing
from dataclasses import dataclass
from pathlib import Path

from rules_core import fields, web
from rules_core.calculators import fight

ROOT = Path(__file__).resolve().parents[2]
DECLARATIONS = Path("types/rules-core-web.d.ts")
LIMITS = Path("docs/assets/javascripts/rules-core-limits.mjs")
# What the page's code reads of rules_core.web, in the order the declarations give them.
WEB_TYPES = (web.Request, web.Answered, web.Refused, web.Answer, web.Work)


@dataclass(frozen=True)
class Limit:
    """One limit the page shares with the Python: its name in the JavaScript, its value,
    and where the Python holds it."""

    name: str
    value: int
    source: str
    meaning: str


def limits() -> tuple[Limit, ...]:
    return (
        Limit(
            "FIGHT_MAX_ROWS",
            fight.FightRequest.MAX_ROWS,
            "rules_core/calculators/fight.py, FightRequest.MAX_ROWS",
            "The most combatant rows a fight takes",
        ),
        Limit(
            "FIGHT_FORM_ROWS",
            fight.FightRequest.FORM_ROWS,
            "rules_core/calculators/fight.py, FightRequest.FORM_ROWS",
            "The combatant rows the fight's form shows",
        ),
        Limit(
            "NAME_LENGTH",
            fight.NAME_LENGTH,
            "rules_core/calculators/fight.py, NAME_LENGTH",
            "The longest name a combatant may have, in characters",
        ),
        Limit(
            "VALUE_LENGTH",
            fields.MAX_INPUT_LENGTH,
            "rules_core/fields.py, MAX_INPUT_LENGTH",
            "The longest value any field takes, in characters",
        ),
    )


class SeamError(TypeError):
    """A Python type the declarations cannot say in TypeScript: the generator says which,
    rather than declaring it `any`."""


def _comment(text: str, indent: str = "") -> list[str]:
    """A docstring as a JSDoc comment (TypeScript shows it where the name is used)."""
    lines = inspect.cleandoc(text).replace("*/", "*\\/").splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


def _docstrings(body: list[ast.stmt]) -> dict[str, str]:
    """The docstring of each annotated name and `type` alias of a body: the string literal
    just after it."""
    docs = {}
    for node, after in itertools.pairwise(body):
        if not (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            continue
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            docs[node.target.id] = after.value.value
        elif isinstance(node, ast.TypeAlias):
            docs[node.name.id] = after.value.value
    return docs


def _attribute_docs(cls: type) -> dict[str, str]:
    """Each annotated attribute's docstring, in the class's source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    return _docstrings(tree.body[0].body) if isinstance(tree.body[0], ast.ClassDef) else {}


def typescript(hint: object, named: frozenset[object]) -> str:
    """A Python type as TypeScript; a declared type (one of `named`) by its name."""
    if hint in named:
        return str(getattr(hint, "__name__", hint))
    if hint is str:
        return "string"
    if hint is bool:
        return "boolean"
    if hint is int or hint is float:
        return "number"
    if hint is None or hint is type(None):
        return "null"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if origin in (types.UnionType, typing.Union):
        return " | ".join(typescript(arg, named) for arg in args)
    if origin is dict and args[0] is str:
        return f"Record<string, {typescript(args[1], named)}>"
    if origin is list:
        return f"{typescript(args[0], named)}[]"
    if origin is tuple and args and args[-1] is not Ellipsis:
        return f"[{', '.join(typescript(arg, named) for arg in args)}]"
    if isinstance(hint, typing.TypeAliasType):
        return typescript(hint.__value__, named)
    raise SeamError(
        f"{hint!r} has no TypeScript declaration: declare it with a type the page reads"
    )


def _interface(cls: type, named: frozenset[object]) -> list[str]:
    """A TypedDict as an interface: each key, optional where NotRequired. (Read from the
    annotations themselves: under `from __future__ import annotations` the class's own
    __optional_keys__ cannot tell.)"""
    docs = _attribute_docs(cls)
    lines = [*_comment(cls.__doc__ or cls.__name__), f"export interface {cls.__name__} {{"]
    for key, hint in typing.get_type_hints(cls, include_extras=True).items():
        optional = typing.get_origin(hint) is typing.NotRequired
        if typing.get_origin(hint) in (typing.NotRequired, typing.Required):
            hint = typing.get_args(hint)[0]
        if key in docs:
            lines += _comment(docs[key], "  ")
        lines.append(f"  {key}{'?' if optional else ''}: {typescript(hint, named)};")
    return [*lines, "}"]


def _class(cls: type, named: frozenset[object]) -> list[str]:
    """A class the page calls through Pyodide, as an interface: its annotated attributes
    (read only: Python sets them) and its public methods."""
    docs = _attribute_docs(cls)
    lines = [*_comment(cls.__doc__ or cls.__name__), f"export interface {cls.__name__} {{"]
    for name, hint in typing.get_type_hints(cls).items():
        if name in docs:
            lines += _comment(docs[name], "  ")
        lines.append(f"  readonly {name}: {typescript(hint, named)};")
    for name, method in vars(cls).items():
        if name.startswith("_") or not inspect.isfunction(method):
            continue
        hints = typing.get_type_hints(method)
        returned = hints.pop("return")
        returns = "void" if returned is type(None) else typescript(returned, named)
        parameters = ", ".join(f"{key}: {typescript(hint, named)}" for key, hint in hints.items())
        if method.__doc__:
            lines += _comment(method.__doc__, "  ")
        lines.append(f"  {name}({parameters}): {returns};")
    return [*lines, "}"]


def declarations() -> str:
    """types/rules-core-web.d.ts: rules_core.web's types as TypeScript."""
    named = frozenset(WEB_TYPES)
    parts = [
        "// The types of rules_core.web, written from the Python (rules_core/web.py) by",
        "// hooks/package/browser_seam.py: do not edit. `make setup` writes it again, and",
        "// tests/test_browser_seam.py fails where it differs from what the Python declares.",
    ]
    aliases = _docstrings(ast.parse(inspect.getsource(web)).body)
    for declared in WEB_TYPES:
        if isinstance(declared, typing.TypeAliasType):
            doc = aliases.get(declared.__name__)
            lines = [
                *(_comment(doc) if doc else []),
                f"export type {declared.__name__} = {typescript(declared.__value__, named)};",
            ]
        elif typing.is_typeddict(declared):
            lines = _interface(declared, named)
        else:
            lines = _class(declared, named)
        parts += ["", *lines]
    return "\n".join(parts) + "\n"


def limits_module() -> str:
    """docs/assets/javascripts/rules-core-limits.mjs: the shared limits as constants."""
    lines = [
        "// The limits the page's code shares with the rules core, written from the Python by",
        "// hooks/package/browser_seam.py: do not edit. `make setup` writes it again, and",
        "// tests/test_browser_seam.py fails where it differs from the Python's.",
    ]
    for limit in limits():
        lines += ["", f"/** {limit.meaning}: {limit.source}. */"]
        lines.append(f"export const {limit.name} = {json.dumps(limit.value)};")
    return "\n".join(lines) + "\n"


def written() -> dict[Path, str]:
    """Each file of the seam (relative to the project) and what it holds."""
    return {DECLARATIONS: declarations(), LIMITS: limits_module()}


def write(root: Path = ROOT) -> list[Path]:
    """Write the seam's files under `root`; a file that already holds it is left as it is.
    Returns the files written."""
    changed = []
    for relative, text in written().items():
        path = root / relative
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python -m hooks.package.browser_seam [ROOT]", file=sys.stderr)
        return 2
    try:
        changed = write(Path(args[0]) if args else ROOT)
    except SeamError as error:
        print(f"browser seam: {error}", file=sys.stderr)
        return 1
    for path in changed:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
