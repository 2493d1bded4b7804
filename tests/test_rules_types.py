"""The typed rules (rules_core.rules) and the rules.yml schema name the same keys.

Each typed section declares `SCHEMA`, its path in the compiled schema ("attack",
"attack.situations.*", "dying.special.[]"), or a tuple of the paths of every section of
that shape it reads (the dice of advantage of the attack, checks, saves and death saves);
its dataclass fields are the keys at each path, a key that is a Python keyword spelt with
a trailing underscore (`from_`, `if_`). A key added to the schema and not to its class,
or the other way round, fails here.
"""

from __future__ import annotations

import dataclasses
import json
import pkgutil
from importlib import import_module
from typing import Any

import pytest

import rules_core.rules
from rules_core.systems import DATA


def _typed_sections() -> list[type[Any]]:
    found = []
    for module_info in pkgutil.iter_modules(rules_core.rules.__path__):
        module = import_module(f"rules_core.rules.{module_info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
                and isinstance(getattr(value, "SCHEMA", None), str | tuple)
            ):
                found.append(value)
    return found


def _schema_at(path: str) -> dict[str, Any]:
    node: Any = json.loads(DATA.read_text(encoding="utf-8"))["schema"]
    for part in path.split("."):
        assert isinstance(node, dict) and part in node, f"{path}: no {part!r} in the schema"
        node = node[part]
    assert isinstance(node, dict), f"{path} is no section of the schema"
    return node


def _paths(section: type[Any]) -> tuple[str, ...]:
    """The schema paths a typed section reads: its SCHEMA, one path or a tuple of them."""
    schema = section.SCHEMA
    return (schema,) if isinstance(schema, str) else schema


SECTIONS = _typed_sections()
SECTION_PATHS = [(section, path) for section in SECTIONS for path in _paths(section)]


@pytest.mark.parametrize(
    ("section", "path"), SECTION_PATHS, ids=[path for _, path in SECTION_PATHS]
)
def test_a_typed_section_has_the_schema_keys(section: type[Any], path: str) -> None:
    keys = {key for key in _schema_at(path) if key not in ("*", "[]")}
    fields = {field.name.rstrip("_") for field in dataclasses.fields(section)}
    assert fields == keys, (
        f"{section.__name__} ({path}): only in the class {sorted(fields - keys)}, "
        f"only in the schema {sorted(keys - fields)}"
    )


def test_one_class_reads_each_shape_of_section() -> None:
    """A shape of section (its keys) is read by one class, which names every path it is
    found at: two classes of one shape would be two readings of it, free to drift apart."""
    assert all(_paths(section) for section in SECTIONS), "a typed section names no path"
    by_shape: dict[frozenset[str], list[str]] = {}
    for section in SECTIONS:
        shape = frozenset(field.name for field in dataclasses.fields(section))
        by_shape.setdefault(shape, []).append(section.__name__)
    twice = {tuple(sorted(shape)): names for shape, names in by_shape.items() if len(names) > 1}
    assert not twice, f"classes of one shape: {twice}"
    by_path: dict[str, list[str]] = {}
    for section, path in SECTION_PATHS:
        by_path.setdefault(path, []).append(section.__name__)
    assert all(len(names) == 1 for names in by_path.values()), by_path


def test_typed_sections_are_frozen() -> None:
    for section in SECTIONS:
        assert section.__dataclass_params__.frozen, f"{section.__name__} can be changed"
