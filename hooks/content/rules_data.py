"""Compile each system's `rules.yml` (and the tables it names) into the rules core's JSON.

The rules core is standard library only, so it cannot read YAML; it reads the JSON this
module writes. Every `cite` is resolved to the page and section it names (and must
exist) and links to the sentence it quotes, and every `table` is replaced by the table's
rows, so a calculator and a page always show the same numbers.

Usage: python -m hooks.content.rules_data rules_core/data/systems.json
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from hooks.content.loader import System, load_content, resolve_target, target_hint
from hooks.content.quotes import normalise, sentence_id
from hooks.content.readings import check_readings
from hooks.content.rules_schema import RULES, check_rules
from hooks.content.specs import skeleton
from hooks.content.yaml_lines import ContentError, LineDict, line_of, one_of

ROOT = Path(__file__).resolve().parents[2]


def _citation(system: System, cited: Any, path: Path) -> dict[str, str]:
    """A citation as the core reads it: the page and section titles, the sentence quoted,
    `url` to the sentence on its page and `section_url` to its section."""
    target, quote = str(cited["see"]), normalise(str(cited["quote"]))
    resolved = resolve_target(system, target)
    if resolved is None:
        raise ContentError(
            path,
            line_of(cited),
            f"cited section '{target}' does not exist" + target_hint(system, target),
        )
    page_name, anchor = resolved
    page = system.pages[page_name]
    section = next(
        (heading.text for heading in page.headings if heading.anchor == anchor), page.title
    )
    page_url = f"{system.slug}/{page_name}/"
    section_url = page_url + (f"#{anchor}" if anchor else "")
    return {
        "page": page.title,
        "section": section,
        "quote": quote,
        "url": f"{page_url}#{sentence_id(quote)}",
        "section_url": section_url,
    }


def _table_rows(system: System, name: Any, path: Path) -> dict[str, Any]:
    if not isinstance(name, str) or name not in system.tables:
        raise ContentError(
            path,
            line_of(name),
            f"no table named '{name}' in tables/" + one_of(name, "tables", system.tables),
        )
    table = system.tables[name]
    return {
        "name": table.name,
        "title": table.title,
        "columns": table.columns,
        "rows": [dict(zip(table.columns, row, strict=True)) for row in table.rows],
        "errata": [
            {"row": erratum.row, "column": erratum.column, "note": erratum.note}
            for erratum in table.errata
        ],
    }


def _compile(system: System, value: Any, path: Path) -> Any:
    if isinstance(value, LineDict | dict):
        compiled: dict[str, Any] = {}
        for key, item in value.items():
            if key == "cite":
                if not isinstance(item, list):
                    raise ContentError(
                        path,
                        line_of(item),
                        "'cite' must be a list of citations, each '- see: combat#cover' with "
                        "'quote: \"the sentence\"'",
                    )
                compiled[key] = [_citation(system, target, path) for target in item]
            elif key == "table":
                compiled[key] = _table_rows(system, item, path)
            else:
                compiled[str(key)] = _compile(system, item, path)
        return compiled
    if isinstance(value, list):
        return [_compile(system, item, path) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


def compile_system(system: System) -> dict[str, Any]:
    path = system.folder / "rules.yml"
    if system.rules is not None:
        check_rules(system, system.rules, path)
        check_readings(system, system.rules, path)
    rules = _compile(system, system.rules or {}, path)
    return {
        "slug": system.slug,
        "title": system.title,
        "short_title": system.short_title,
        "dice": system.dice,
        "rules": rules,
    }


def rules_data(compiled: dict[str, Any]) -> dict[str, Any]:
    """What rules_core/data/systems.json holds, from each system's compile_system()."""
    # The file is written with sorted keys: "order" keeps the order of content/systems.yml.
    return {
        "order": list(compiled),
        "systems": compiled,
        # The keys the schema allows, so the core reads by them (rules_core.systems.RulesView).
        "schema": skeleton(RULES),
    }


def compile_all(content: Path) -> dict[str, Any]:
    systems = load_content(content)
    return rules_data({slug: compile_system(system) for slug, system in systems.items()})


def write_if_changed(data: dict[str, Any], output: Path) -> bool:
    """Write the rules data to output; True when the file changed (the dev server then
    rebuilds what reads it)."""
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if output.is_file() and output.read_text(encoding="utf-8") == text:
        return False
    output.parent.mkdir(parents=True, exist_ok=True)
    # Whole or not at all: the dev server, a test session or `make data` may read it meanwhile.
    partial = output.with_name(f".{output.name}.{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    partial.replace(output)
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m hooks.content.rules_data OUTPUT.json", file=sys.stderr)
        return 2
    try:
        write_if_changed(compile_all(ROOT / "content"), Path(argv[0]))
    except ContentError as error:
        print(f"content error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
