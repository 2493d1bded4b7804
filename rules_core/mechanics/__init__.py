"""The rules' mechanics: pure functions from a system's rules and a setup to exact odds.

Each module is one mechanic: ability scores, progression, encounter budgets, situations,
attacks, checks, damage, and the dying and fight chains. They read the rules data and
never a calculator; the calculators (rules_core.calculators) ask them and say the answer.
"""
