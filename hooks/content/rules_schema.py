"""The schema of `content/<system>/rules.yml`, and its checker.

`make data` (hooks/content/rules_data.py) checks each system's rules against `RULES` before
anything reads them, so a wrong value stops there with its file, line and fix instead
of reaching the rules core as a traceback. The schema is data: a `Section` maps each
key to the spec of its value, an optional key ends in "?", and a spec is one of the
small classes of `hooks.content.specs`. A new section is a few lines:

    RULES.add("saves", Section({"roll": DICE, "target?": Integer(minimum=1), **CITED}))

The table of sections and keys in content/README.md is made from RULES
(`python -m hooks.content.rules_schema`).
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from hooks.content.loader import System
from hooks.content.quotes import section_text, sentences
from hooks.content.specs import (
    AttackTypeName,
    Boolean,
    Citations,
    ColumnName,
    Dice,
    FractionText,
    Integer,
    KeyOf,
    ListOf,
    MapOf,
    NameOf,
    OneOf,
    PrintedRange,
    Range,
    Section,
    SectionOrName,
    Spec,
    TableName,
    Text,
    Where,
)
from hooks.content.yaml_lines import ContentError, line_of
from rules_core.mechanics.fight import FOLLOWED
from rules_core.rules.attack import Effect

# --------------------------------------------------------------------------- the schema

# A cited rule: where the text says it, and a labelled reading where the text is unclear.
CITED: dict[str, Spec] = {"cite": Citations(), "interpretation?": Text()}
NOTED: dict[str, Spec] = {"cite?": Citations(), "interpretation?": Text()}
DICE = Dice()
NATURALS = Section({"naturals": ListOf(Integer(minimum=1), min_items=1), **CITED})

NAMES = ListOf(Text(), min_items=1)
SITUATIONS = ListOf(NameOf("attack.situations", "situation"), min_items=1)
# The spec of each kind of value the effect vocabulary takes (rules_core.rules.attack.VALUES):
# names are other situations' (that a situation confers, prevents, holds with or without).
EFFECT_VALUES: dict[str, Spec] = {
    "integer": Integer(),
    "count": Integer(minimum=0),
    "flag": Boolean(),
    "fraction": FractionText(),
    "names": SITUATIONS,
}
# Names that are not situations': the attack types an effect holds for.
NAMED: dict[str, Spec] = {"attack_types": ListOf(AttackTypeName(), min_items=1)}
# What a situation does to an attack, and the filters saying when: the fields of the
# vocabulary, rules_core.rules.attack.Effect (the resolver and its words read it too, and
# never a situation's name), each optional.
EFFECTS: dict[str, Spec] = {
    f"{key}?": NAMED.get(key) or EFFECT_VALUES[kind.metadata["value"]]
    for kind in fields(Effect)
    if (key := kind.name.rstrip("_"))
}
SITUATION = Section(
    {
        "label": Text(),
        "side?": OneOf("attacker", "target"),
        "group?": Text(),
        # The attack type the text ties the situation to: it sets it, and refuses another.
        "attack_type?": AttackTypeName(),
        "when?": ListOf(Section(EFFECTS), min_items=1),
        **EFFECTS,
        **CITED,
    }
)


# Where a text says two things: the result names both, when its inputs match `when` (the
# levels of a printed range; a rank of the encounter's `ranks`).
def ambiguities(when: Section) -> ListOf:
    return ListOf(Section({"when": when, **CITED}), min_items=1)


# The dice notations a text defines beyond NdX (rules_core.dice.NOTATIONS names them).
NOTATION = MapOf(Section(NOTED))

ADVANTAGE = Section({"advantage": DICE, "disadvantage": DICE, "both": Text(), **CITED})
ADVANTAGE_OR_NAME = SectionOrName(ADVANTAGE, ("checks", "saves"))
BONUS = Section({"note": Text(), "cite?": Citations()})
RESULT = OneOf("up", "stable", "dead")
OPTION = NameOf("dying.options", "option")  # an option of the death saves the rule depends on
# A check or a save: the roll, what may be added, the targets the text names.
ROLL_RULE: dict[str, Spec] = {
    "label": Text(),
    "roll": DICE,
    "bonus?": BONUS,
    "advantage?": ADVANTAGE_OR_NAME,
    # A labelled reading of how advantage applies here (read by the roll every section shares).
    "advantage_interpretation?": Text(),
    "difficulties?": Section(
        {
            "rows?": ListOf(
                Section(
                    {
                        "label": Text(),
                        "value": Integer(),
                        "levels?": Range(minimum=1),
                        "interpretation?": Text(),
                    }
                ),
                min_items=1,
            ),
            "table?": TableName(),
            "label_column?": ColumnName(),
            "value_column?": ColumnName(),
            **CITED,
        },
        together=(("table", "label_column", "value_column"),),
    ),
    "unstated?": ListOf(Text()),
    **CITED,
}

# The rules of a text's data that change a fight from round to round or by hit points:
# where a system's rules.yml has one, the fight calculator follows it (FOLLOWED) or the file
# names it under fight.not_followed (`covers`), so every fight's answer says it.
PER_ROUND = ("attack.escalation", "saves.escalation", "saves.repeat", "dying")

# The rules a text states in its prose that change how a fight goes, with no section of
# rules.yml to hold them, found by their words in the text's pages: the fight follows none
# of them (each side acts as a whole, and a miss deals nothing), so a text that has one
# names it under fight.not_followed (`covers`), quoting a sentence that has those words.
TEXT_RULES = {
    # Combatants act in an order of their own (an initiative check, bands): the fight lets
    # one side act as a whole, then the other.
    "initiative": re.compile(r"\binitiative\b", re.IGNORECASE),
    # An attack that misses still does something ("Miss: half damage", miss damage).
    "miss": re.compile(
        r"\bmiss(?:es)?(?::|\s+damage\b|\s+effects?\b)|\bon a miss\b", re.IGNORECASE
    ),
}

RULES = Section(
    {
        "ability_modifier?": Section(
            {
                "table?": TableName(),
                "score_column?": ColumnName(),
                "modifier_column?": ColumnName(),
                "scores": Range(minimum=0),
                **CITED,
            },
            together=(("table", "score_column", "modifier_column"),),
        ),
        "point_buy?": Section(
            {
                "budget": Integer(minimum=0),
                "count": Integer(minimum=1),
                "table": TableName(),
                "score_column": ColumnName(),
                "cost_column": ColumnName(),
                "below": Section({"score": Integer(), "at_most": Integer(minimum=0)}),
                **CITED,
            }
        ),
        "ability_roll?": Section({"expression": DICE, **CITED}),
        "levels?": Section(
            {
                "table": TableName(),
                "columns": Section(
                    {"level": ColumnName(), "total": ColumnName(), "grants?": MapOf(ColumnName())}
                ),
                "level_bonus": Section({"divisor": Integer(minimum=1), **CITED}),
                "tiers": Section(
                    {
                        "ranges": ListOf(
                            Section({"name": Text(), "levels": PrintedRange(), "erratum?": Text()}),
                            min_items=1,
                        ),
                        **CITED,
                    }
                ),
                "ambiguities?": ambiguities(Section({"levels": PrintedRange()})),
                **CITED,
            }
        ),
        "attack?": Section(
            {
                "roll": DICE,
                "always_hit?": NATURALS,
                "always_miss?": NATURALS,
                "critical": Section(
                    {"from": Integer(minimum=1), "requires_hit?": Boolean(), **CITED}
                ),
                "crit_fail?": NATURALS,
                "escalation?": Section(
                    {
                        "max": Integer(minimum=1),
                        # The die in a fight: 1 in round `from_round`, one more each round
                        # after, up to `max`; the fight adds it to the party's attacks.
                        "by_round?": Section({"from_round": Integer(minimum=1), **CITED}),
                        **CITED,
                    }
                ),
                "advantage?": ADVANTAGE,
                # `cite`: the sentences on attack types in general; `each`: each type's
                # own, cited only for an attack of that type.
                "attack_types?": Section(
                    {
                        "names": NAMES,
                        "cite?": Citations(),
                        "each?": MapOf(Section(CITED), key=AttackTypeName()),
                        "interpretation?": Text(),
                    },
                    any_of=(("cite", "each"),),
                ),
                "situations?": MapOf(SITUATION),
                "resist?": Section(CITED),
                "unstated?": ListOf(Text()),
                **CITED,
            }
        ),
        "damage?": Section(
            {
                "critical": Section(
                    {
                        "kind": OneOf("maximise", "double-dice", "double-total"),
                        "extra_dice?": OneOf("rolled"),
                        **CITED,
                    }
                ),
                "resistance?": Section(
                    {"kind": OneOf("subtract", "halve", "natural-threshold"), **CITED}
                ),
                "vulnerability?": Section({"kind": OneOf("add", "double"), **CITED}),
                "halving?": Section(CITED),
                "floor": Section({"value": Integer(), **NOTED}),
                "notation?": NOTATION,
                **CITED,
            }
        ),
        "encounter?": Section(
            {
                "table": TableName(),
                "level_column": ColumnName(),
                "ranks": MapOf(ColumnName()),
                "budget_rank": KeyOf("ranks"),
                "ambiguities?": ambiguities(Section({"rank": NameOf("encounter.ranks", "rank")})),
                **CITED,
            }
        ),
        "checks?": Section(
            {
                **ROLL_RULE,
                "contest?": Section({"tie": Text(), **CITED}),
                "group?": Section(
                    {
                        "at_least": FractionText(),
                        # In a contest, the group's totals count as this one (the median).
                        "contest?": Section({"total": OneOf("median"), **CITED}),
                        **CITED,
                    }
                ),
                "extended?": Section({"label": Text(), "failures": Integer(minimum=1), **CITED}),
            }
        ),
        "saves?": Section(
            {
                **ROLL_RULE,
                "target?": Integer(),
                "escalation?": Section({"max": Integer(minimum=1), "label": Text(), **CITED}),
                "repeat?": Section({"label": Text(), **CITED}),
            }
        ),
        "dying?": Section(
            {
                "label": Text(),
                "roll": DICE,
                "target": Integer(),
                "bonus?": BONUS,
                "advantage?": ADVANTAGE_OR_NAME,
                "advantage_interpretation?": Text(),
                "timing?": Section(CITED),
                "failures": Section({"count": Integer(minimum=1), **CITED}),
                "successes?": Section(
                    {
                        "count": Integer(minimum=1),
                        "result": RESULT,
                        "label": Text(),
                        **CITED,
                    }
                ),
                "special?": ListOf(
                    Section(
                        {
                            "label": Text(),
                            "naturals?": ListOf(Integer(minimum=1), min_items=1),
                            "natural_from?": Integer(minimum=1),
                            "total_from?": Integer(),
                            "result?": RESULT,
                            "failures?": Integer(minimum=1),
                            "successes?": Integer(minimum=1),
                            "without?": Section({"option": OPTION, "as_total": Integer()}),
                            **CITED,
                        }
                    ),
                    min_items=1,
                ),
                "first_save?": Section(
                    {
                        "option": OPTION,
                        "advantage?": Integer(minimum=0),
                        "disadvantage?": Integer(minimum=0),
                        **CITED,
                    }
                ),
                "options?": MapOf(Section({"label": Text(), "note?": Text(), **CITED})),
                "unstated?": ListOf(Text()),
                **CITED,
            }
        ),
        # The rules of the text that change a fight from round to round or by hit points
        # and that the fight calculator does not follow: each said in every fight's answer.
        "fight?": Section(
            {
                "not_followed": ListOf(
                    Section(
                        {
                            "label": Text(),
                            # The rules of this file (PER_ROUND) and of its text
                            # (TEXT_RULES) the entry names.
                            "covers?": ListOf(OneOf(*PER_ROUND, *TEXT_RULES), min_items=1),
                            "note": Text(),
                            "cite": Citations(),
                        }
                    ),
                    min_items=1,
                )
            }
        ),
        # What a text does not define, said in its own terms: a note (and where it says so).
        "not_defined?": MapOf(Section({"note": Text(), "cite?": Citations()})),
    },
    what="each section of rules.yml needs its schema in hooks/content/rules_schema.py",
)


def rules_table() -> str:
    """The table of rules.yml's sections and keys in content/README.md, made from RULES."""
    rows = [
        "| Section | Keys (required unless marked ?) |",
        "| --- | --- |",
    ]
    for name, spec in RULES.fields.items():
        described = spec.describe(braces=False) if isinstance(spec, Section) else spec.describe()
        rows.append(f"| `{name.removesuffix('?')}` | {described} |")
    return "\n".join(rows) + "\n"


def check_rules(system: System, rules: Any, path: Path) -> None:
    """Raise ContentError at the first value of `rules` that the schema refuses, or at a
    rule that changes a fight round by round that the fight neither follows nor names."""
    RULES.check(rules, Where(system=system, path=path, line=line_of(rules, 1), key=""))
    check_per_round(rules, path)
    check_text_rules(system, rules, path)


def _at(rules: Any, path: str) -> Any:
    """The value at a dotted path of the rules (None where there is none), and its line."""
    value = rules
    for key in path.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def check_per_round(rules: Any, path: Path) -> None:
    """Every rule of PER_ROUND in the file is followed by the fight (FOLLOWED: by the key
    it reads) or named by a fight.not_followed entry (`covers`), and an entry covers only
    what the file has: a fight's answer says each rule of its text that changes it."""
    entries = _at(rules, "fight.not_followed") or []
    named = {covered: entry for entry in entries for covered in entry.get("covers") or ()}
    for covered, entry in named.items():
        if covered not in TEXT_RULES and _at(rules, covered) is None:
            raise ContentError(
                path,
                line_of(entry.get("covers"), line_of(entry)),
                f"'fight.not_followed' covers '{covered}', which this file does not have",
            )
    for rule in PER_ROUND:
        found = _at(rules, rule)
        reads = FOLLOWED.get(rule)
        if found is None or rule in named or (reads and _at(rules, reads) is not None):
            continue
        how = f" or give '{reads}' for the fight to follow it" if reads else ""
        raise ContentError(
            path,
            line_of(found),
            f"'{rule}' changes a fight from round to round: name it under fight.not_followed "
            f"(label, covers: [{rule}], note, cite){how}",
        )


def text_rule_sentence(system: System, rule: str) -> tuple[str, str] | None:
    """The first sentence of the system's pages that states a TEXT_RULES rule, with its
    page's name; None where the text has none."""
    words = TEXT_RULES[rule]
    for name in system.pages:
        for sentence in sentences(section_text(system, name, None)):
            if words.search(sentence):
                return name, sentence
    return None


def check_text_rules(system: System, rules: Any, path: Path) -> None:
    """Every rule of TEXT_RULES that the system's text states is named by a
    fight.not_followed entry (`covers`) quoting a sentence with its words; an entry covers
    only what the text states. Only for a system with a fight (its text's attack rolls)."""
    if _at(rules, "attack") is None:
        return
    entries = _at(rules, "fight.not_followed") or []
    for rule, words in TEXT_RULES.items():
        found = text_rule_sentence(system, rule)
        covering = [entry for entry in entries if rule in (entry.get("covers") or ())]
        if found is None:
            if covering:
                raise ContentError(
                    path,
                    line_of(covering[0].get("covers"), line_of(covering[0])),
                    f"'fight.not_followed' covers '{rule}', which this system's text does "
                    f"not state (no sentence of its pages matches {words.pattern!r})",
                )
            continue
        page, sentence = found
        if not covering:
            where = _at(rules, "fight.not_followed") or _at(rules, "fight") or rules
            raise ContentError(
                path,
                line_of(where, 1),
                f"the text states a rule of {rule} that changes a fight ({page}.md: "
                f'"{sentence}"), which the fight does not follow: name it under '
                f"fight.not_followed (label, covers: [{rule}], note saying what the fight "
                "does instead, cite quoting the text's sentence)",
            )
        for entry in covering:
            quotes = [str(cited.get("quote", "")) for cited in entry.get("cite") or ()]
            if not any(words.search(quote) for quote in quotes):
                raise ContentError(
                    path,
                    line_of(entry.get("cite"), line_of(entry)),
                    f"the entry covering '{rule}' quotes no sentence stating it: cite one "
                    f'with its words, such as {page}.md\'s "{sentence}"',
                )


README = Path(__file__).resolve().parents[2] / "content" / "README.md"
_TABLE_BLOCK = re.compile(r"(<!-- rules-schema:[^\n]*-->\n)(.*?)(<!-- /rules-schema -->)", re.S)


def documented(readme: str) -> str:
    """content/README.md with its table of rules.yml's keys made from RULES."""
    if not _TABLE_BLOCK.search(readme):
        raise ValueError("content/README.md has no <!-- rules-schema: ... --> block")
    return _TABLE_BLOCK.sub(lambda match: match[1] + rules_table() + match[3], readme)


if __name__ == "__main__":
    README.write_text(documented(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the rules.yml table of {README}")
