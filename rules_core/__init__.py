"""Exact, data-driven rules engine for the systems of the open rules reference.

Modules, one job each: `dice` (expressions and exact distributions), `abilities`,
`progression` (XP and level), `attacks`, `damage`, `encounters`, `systems` (the rules
data compiled from content/), and `cli` (the command line).
"""
