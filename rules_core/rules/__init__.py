"""The rules data as typed frozen objects: one module per group of rules.yml sections.

Each section a mechanic or a page reads is a frozen dataclass here, built once per loaded
system from its compiled data (`rules_core.systems.read_once` keeps it beside the section
it was read from) and named after the schema's keys, so a reader gets attributes that
mypy checks instead of strings it looks up. The schema in hooks/content/rules_schema.py
checks the data before it is compiled. Each class declares `SCHEMA: ClassVar[str]`, its
path in the compiled schema ("attack.situations.*", "dying.special.[]"), and one field per
key (a keyword key spelt with a trailing underscore: `from_`); tests/test_rules_types.py
finds every such class and ties its fields to the schema's keys, so a key added to one
and not the other fails there.
"""
