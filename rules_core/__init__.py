"""Exact, data-driven rules engine for the systems of the open rules reference.

Floors, one job per module: `dice` (expressions and exact distributions) and `numbers`;
`systems` (the rules data compiled from content/); the mechanics (`abilities`,
`progression`, `attacks`, `situations`, `damage`, `encounters`, `checks`, ...);
`fields` and `requests` (the typed request model every caller shares); `calculators`
(one module per calculator and their ordered registry); and two thin callers, `cli`
(the command line) and `web` (the pages' worker and the build's prerender).
"""
