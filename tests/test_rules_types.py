"""The typed rules (rules_core.rules) and the rules.yml schema name the same keys.

Each typed section declares `SCHEMA`, its path in the compiled schema ("attack",
"attack.situations.*", "dying.special.[]"); its dataclass fields are that section's keys,
a key that is a Python keyword spelt with a trailing underscore (`from_`, `if_`). A key
added to the schema and not to its class, or the other way round, fails here.
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
                and isinstance(getattr(value, "SCHEMA", None), str)
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


SECTIONS = _typed_sections()


@pytest.mark.parametrize("section", SECTIONS, ids=lambda section: section.__name__)
def test_a_typed_section_has_the_schema_keys(section: type[Any]) -> None:
    keys = {key for key in _schema_at(section.SCHEMA) if key not in ("*", "[]")}
    fields = {field.name.rstrip("_") for field in dataclasses.fields(section)}
    assert fields == keys, (
        f"{section.__name__} ({section.SCHEMA}): only in the class {sorted(fields - keys)}, "
        f"only in the schema {sorted(keys - fields)}"
    )


def test_typed_sections_are_frozen() -> None:
    for section in SECTIONS:
        assert section.__dataclass_params__.frozen, f"{section.__name__} can be changed"
