"""The rules data as typed frozen objects: one module per group of rules.yml sections.

Each section a mechanic or a page reads is a frozen dataclass here, built once per loaded
system from its compiled data (`rules_core.views.read_once` keeps it beside the section
it was read from) and named after the schema's keys, so a reader gets attributes that
mypy checks instead of strings it looks up. The schema in hooks/content/rules_schema.py
checks the data before it is compiled. Each class declares `SCHEMA`, its path in the
compiled schema ("attack.situations.*", "dying.special.[]"), or a tuple of every path a
section of its shape is found at (rules_core.rules.common.Advantage: the attack's, the
checks', the saves' and the death saves' dice), and one field per key (a keyword key
spelt with a trailing underscore: `from_`); tests/test_rules_types.py finds every such
class and ties its fields to the keys at each path, so a key added to one and not the
other fails there, and it refuses two classes of one shape.
"""
