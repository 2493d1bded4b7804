"""The core reads each system's rules by the keys of the rules.yml schema: a key the schema
does not have is an error naming it, never a silent "not given"."""

from __future__ import annotations

import pytest

from hooks.content.rules_schema import RULES
from hooks.content.specs import Section
from rules_core.systems import get_system, system_slugs
from rules_core.views import RulesView


@pytest.mark.parametrize("slug", system_slugs())
def test_a_misspelt_key_is_an_error_not_a_default(slug: str) -> None:
    rules = get_system(slug).rules
    assert isinstance(rules, RulesView)
    with pytest.raises(KeyError, match=r"rules\.atack is no key of the rules\.yml schema"):
        rules.get("atack")
    with pytest.raises(KeyError, match=r"no key of the rules\.yml schema"):
        _ = "atack" in rules


@pytest.mark.parametrize("slug", system_slugs())
def test_every_section_of_the_schema_reads_as_given_or_absent(slug: str) -> None:
    rules = get_system(slug).rules
    for key, spec in RULES.fields.items():
        name = key.removesuffix("?")
        section = rules.get(name)
        assert section is None or isinstance(section, RulesView), name
        if isinstance(section, RulesView) and isinstance(spec, Section):  # not a map of names
            for key in section:  # what the system gives reads back as given
                section.get(key)
            with pytest.raises(KeyError, match=rf"rules\.{name}\.no_such_key"):
                section.get("no_such_key")


def test_names_the_content_chooses_read_freely() -> None:
    for slug in system_slugs():
        said = get_system(slug).rules.get("not_defined") or {}
        assert said.get("any-name-at-all") is None  # a name, not a schema key
