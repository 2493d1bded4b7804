"""Where each calculator lives on the site, and the one way to write its address.

An answer that links to another calculator (the encounter's "Fight odds for these
monsters") and every page of the site that opens one (dice chips, table cells, section
links, Compare) build the address here, from the calculator's registry name, its inputs
and the way from the page to the site root.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

# The page that holds each calculator of the registry, docs/calculators/<page>.md: where the
# pages group calculators (the three ability score calculators on one page) or name them
# otherwise, the page is the site's decision, not the calculator's.
PAGES: Mapping[str, str] = {
    "modifier": "abilities",
    "pointbuy": "abilities",
    "abilityroll": "abilities",
    "level": "level",
    "attack": "attack",
    "damage": "damage",
    "encounter": "encounter",
    "fight": "fight",
    "roll": "dice",
    "check": "checks",
    "dying": "dying",
}


def _query(inputs: Mapping[str, object]) -> str:
    return f"?{urlencode(inputs)}" if inputs else ""


def calculator_address(name: str, inputs: Mapping[str, object], base: str) -> str:
    """The served address of calculator `name` with `inputs` filled in; `base` leads from
    the page to the site root ("../../")."""
    return f"{base}calculators/{PAGES[name]}/{_query(inputs)}"


def calculator_markdown_address(name: str, inputs: Mapping[str, object], base: str) -> str:
    """The same address as a Markdown link target: the page's source file, which the site
    generator resolves and checks; `base` leads from the Markdown file to the docs root."""
    return f"{base}calculators/{PAGES[name]}.md{_query(inputs)}"
