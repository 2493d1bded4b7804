"""Search lands on the rule: what a player types, as they type it (plurals, inflections,
short forms), with the section of the text that sets the rule out, in every system.

Each query is asked from its system's own pages, through the page's real search; the first
result a reader taps (its first section) must land in that section: at its heading, or at a
sentence or entry under it (where the text defines a term, an entry headed in bold). From a
page outside every system, the system's first result must land there too. A system of
content/systems.yml without queries here fails: a new system brings its own.

The share of these queries whose first result lands on the rule is printed by
`pytest -s tests/test_search_relevance.py` (58 % at 0c2227f, 100 % since).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Watched
from searching import ask, landing, lands_in

from hooks.content.loader import load_content

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS = load_content(CONTENT)

# {system: [(what a player types, [the sections it must land in: "page#anchor", or "page"
# for the page's opening])]}. Two sections where the text sets the rule out in both.
QUERIES: dict[str, list[tuple[str, list[str]]]] = {
    "orcus": [
        ("opportunity attack", ["combat#opportunity-attacks"]),
        ("opportunity attacks", ["combat#opportunity-attacks"]),
        ("dying", ["conditions#dying"]),
        ("death saves", ["healing#death-saving-throws"]),
        ("crit", ["damage#critical-hits"]),
        ("critical hits", ["damage#critical-hits"]),
        ("combat advantage", ["combat#combat-advantage"]),
        ("flanked", ["movement#flanking"]),
        ("grapple", ["actions#grapple-standard-action"]),
        ("escape grapple", ["actions#escape-a-grapple-standard-action"]),
        ("charging", ["actions#charge-standard-action"]),
        ("cover", ["combat#cover"]),
        ("staggered", ["healing#staggered"]),
        ("recovery", ["healing#recoveries"]),
        ("short rest", ["adventuring#short-rest"]),
        ("temporary hit points", ["healing#temporary-hit-points"]),
        ("action points", ["combat#action-points"]),
        ("point buy", ["abilities#point-buy"]),
        ("total defense", ["actions#total-defense-standard-action"]),
        ("coup de grace", ["actions#coup-de-grace-special"]),
        ("two-weapon fighting", ["combat#two-weapon-fighting"]),
        ("concealment", ["combat#concealment"]),
        ("prone", ["conditions#prone"]),
        ("persistent damage", ["powers#persistent-damage"]),
        ("level bonus", ["levels#level-bonus"]),
        ("stunned", ["conditions#stunned"]),
        ("regeneration", ["healing#regeneration"]),
        ("initiative", ["combat#initiative"]),
        ("instant death", ["healing#instant-death"]),
        ("immediate action", ["combat#immediate-actions"]),
        ("line of sight", ["powers#line-of-sight"]),
        ("teleport", ["powers#teleportation"]),
        ("rally", ["actions#rally-standard-action"]),
        ("swift actions", ["combat#swift-actions"]),
        ("saving throw", ["combat#saving-throws"]),
    ],
    "3d6-combat": [
        ("opportunity attack", ["special-actions#opportunity-attacks"]),
        ("opportunity attacks", ["special-actions#opportunity-attacks"]),
        ("escalation die", ["combat-sequence#escalation-die"]),
        ("dying", ["damage-and-recovery#dying-and-death"]),
        ("death", ["damage-and-recovery#dying-and-death"]),
        ("last gasp", ["damage-and-recovery#last-gasp-saves"]),
        ("disengage", ["positioning-and-movement#disengaging-and-popping-off"]),
        ("popping off", ["positioning-and-movement#disengaging-and-popping-off"]),
        # The chapter's opening defines it, and "Free and Engaged" says what it restricts.
        ("engaged", ["positioning-and-movement", "positioning-and-movement#free-and-engaged"]),
        ("flee", ["special-actions#flee"]),
        ("rally", ["special-actions#rally"]),
        ("coup de grace", ["special-actions#coup-de-grace"]),
        ("intercept", ["special-actions#intercept"]),
        ("initiative", ["combat-sequence#initiative-bands"]),
        ("ambush", ["combat-sequence#surprise-and-ambushes"]),
        ("ready an action", ["combat-sequence#readying-an-action"]),
        ("delay", ["combat-sequence#delaying-your-turn"]),
        ("recoveries", ["damage-and-recovery#recoveries"]),
        ("quick rest", ["damage-and-recovery#quick-rest"]),
        ("full rest", ["damage-and-recovery#full-rest"]),
        ("resistance", ["combat-rules#resistance-and-weakness"]),
        ("damage types", ["combat-rules#damage-types"]),
        ("dicey move", ["special-actions#dicey-moves"]),
        ("basic attack", ["combat-rules#basic-attacks"]),
        ("basic ranged attack", ["combat-rules#basic-ranged-attack"]),
        ("action types", ["actions#action-types"]),
        ("fight in spirit", ["special-actions#fight-in-spirit"]),
        ("allies", ["actions#allies-and-enemies"]),
        ("weakness", ["combat-rules#resistance-and-weakness"]),
        ("recharging", ["damage-and-recovery#resting-and-recharging"]),
    ],
    "into-the-unknown": [
        ("opportunity attack", ["combat#opportunity-attacks"]),
        ("opportunity attacks", ["combat#opportunity-attacks"]),
        ("cover", ["combat#cover"]),
        ("grappled", ["conditions#grappled"]),
        ("grappling", ["combat#grappling-shoving"]),
        # The text's two grapple rules: the condition, and grappling as an attack.
        ("grapple", ["conditions#grappled", "combat#grappling-shoving"]),
        ("crit", ["combat#critical-hits"]),
        ("death save", ["combat#death-saving-throws"]),
        ("prone", ["conditions#prone"]),
        ("advantage", ["taking-action#advantagedisadvantage"]),
        ("short rest", ["adventuring#short-rest"]),
        ("long rest", ["adventuring#long-rest"]),
        ("initiative", ["combat#initiative"]),
        ("surprised", ["combat#surprise"]),
        ("two weapon fighting", ["combat#two-weapon-fighting"]),
        ("temporary hit points", ["combat#temporary-hit-points"]),
        ("stabilize", ["combat#stabilizing-a-creature"]),
        ("dodge", ["combat#dodge"]),
        ("disengage", ["combat#disengage"]),
        ("falling", ["adventuring#falling"]),
        ("jump", ["adventuring#jumping"]),
        ("darkvision", ["adventuring#darkvision"]),
        ("group checks", ["taking-action#group-checks"]),
        ("bonus action", ["combat#bonus-actions"]),
        ("reactions", ["combat#reactions"]),
        ("saving throws", ["taking-action#saving-throws"]),
        ("contest", ["taking-action#contests"]),
        ("instant death", ["combat#instant-death"]),
        ("resistance", ["combat#damage-resistance-and-vulnerability"]),
        ("mounted combat", ["combat#mounted-combat"]),
        ("shove", ["combat#grappling-shoving"]),
        ("unconscious", ["conditions#unconscious"]),
        ("travel pace", ["adventuring#travel-pace"]),
        ("carousing", ["adventuring#carousing"]),
    ],
    "4e-core": [
        ("opportunity attack", ["combat#actions"]),
        ("opportunity attacks", ["combat#actions"]),
        ("combat advantage", ["attacks-and-damage#combat-advantage"]),
        ("flanking", ["attacks-and-damage#flanking"]),
        ("crit", ["attacks-and-damage#critical-hits"]),
        ("critical hits", ["attacks-and-damage#critical-hits"]),
        ("action points", ["action-points"]),
        ("healing surges", ["hit-points-healing-and-dying#healing-in-combat"]),
        ("second wind", ["attacks-and-damage#other-actions-in-combat"]),
        (
            "dying",
            ["hit-points-healing-and-dying", "hit-points-healing-and-dying#healing-the-dying"],
        ),
        ("death saving throw", ["hit-points-healing-and-dying"]),
        ("extended rest", ["hit-points-healing-and-dying#rest-and-recovery"]),
        ("forced movement", ["movement#forced-movement"]),
        ("pushed", ["movement#forced-movement"]),
        ("shift", ["movement#move-actions"]),
        ("difficult terrain", ["movement#difficult-terrain"]),
        ("skill check", ["core-mechanic#skill-checks"]),
        ("initiative", ["combat#combat-sequence"]),
        ("surprise round", ["combat#combat-sequence"]),
        ("charge", ["attacks-and-damage#other-actions-in-combat"]),
        ("saving throws", ["combat#taking-your-turn"]),
        ("bloodied", ["hit-points-healing-and-dying"]),
        ("occupied squares", ["movement#occupied-squares"]),
        ("obstacles", ["movement#obstacles"]),
        ("specific beats general", ["core-mechanic#three-basic-rules"]),
        ("noncombat encounter", ["encounters#noncombat-encounters"]),
        ("stealth", ["skills"]),
        ("minor action", ["combat#actions"]),
        ("move actions", ["movement#move-actions"]),
        ("attack roll", ["core-mechanic#attack-rolls"]),
        ("healing the dying", ["hit-points-healing-and-dying#healing-the-dying"]),
    ],
}


def test_every_system_has_its_queries() -> None:
    """At least 30 queries in all, and every system has its own (a system added to
    content/systems.yml fails here until it has them)."""
    assert sum(len(queries) for queries in QUERIES.values()) >= 30
    assert set(QUERIES) <= set(SYSTEMS), set(QUERIES) - set(SYSTEMS)


def missed(site: Path, slug: str, answers: list) -> list[tuple[str, str | None]]:
    """The queries whose first result does not land in their section: (query, landing)."""
    misses = []
    for (query, sections), groups in zip(QUERIES[slug], answers, strict=True):
        place = landing(groups[0]) if groups else None
        if place is None or not any(lands_in(site, place, f"{slug}/{s}") for s in sections):
            misses.append((query, place))
    return misses


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_the_first_result_lands_on_the_rule_from_the_systems_pages(
    watched: Watched, server: str, site: Path, slug: str
) -> None:
    queries = QUERIES.get(slug)
    assert queries, f"no search queries for {slug}: add what a player types to QUERIES"
    watched.page.goto(f"{server}{slug}/")
    misses = missed(site, slug, ask(watched.page, [query for query, _ in queries], 1))
    print(f"{slug}: {len(queries) - len(misses)} of {len(queries)} land on the rule")
    assert misses == []


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_each_systems_first_result_lands_on_the_rule_from_the_home_page(
    watched: Watched, server: str, site: Path, slug: str
) -> None:
    """Outside every system, each system's results are led by its best: that one lands."""
    queries = QUERIES.get(slug)
    assert queries, f"no search queries for {slug}: add what a player types to QUERIES"
    watched.page.goto(server)
    label = SYSTEMS[slug].short_title
    answers = ask(watched.page, [query for query, _ in queries], 10)
    own = [[group for group in groups if group[0][1] == [label]][:1] for groups in answers]
    assert missed(site, slug, own) == []


# Two words the text uses for two rules, one the start of the other's stem: a search for
# either finds pages holding that word, never pages holding only the other.
DISTINCT = [("dying", "die"), ("natural", "nature"), ("arcane", "arcana")]


def article_words(site: Path, location: str) -> str:
    html = (site / location.split("#")[0].strip("/") / "index.html").read_text("utf-8")
    article = html[html.find("<article") : html.find("</article>")]
    return re.sub(r"<[^>]+>", " ", article).lower()


@pytest.mark.parametrize("words", DISTINCT, ids="/".join)
def test_one_rule_term_is_never_found_as_another(
    watched: Watched, server: str, site: Path, words: tuple[str, str]
) -> None:
    watched.page.goto(server)
    answers = ask(watched.page, list(words), 10)
    for word, groups in zip(words, answers, strict=True):
        assert groups, word
        for group in groups:
            page = group[0][0]
            assert re.search(rf"\b{word}", article_words(site, page)), (word, page)
