"""Glossary linking decided on markdown-it-py tokens: what is linked and what never is."""

from __future__ import annotations

from hooks.pages.linker import LinkTarget, TermMatcher, link_terms

COVER = LinkTarget("Cover", "combat.md#cover", 'Harder to "hit".', "combat", "cover")
ADVANTAGE = LinkTarget(
    "Combat advantage", "combat.md#combat-advantage", "+2.", "combat", "combat-advantage"
)
# The definition as an attribute list value: its quotes as character references.
COVER_ATTRIBUTES = '{ .term-link data-definition="Harder to &#34;hit&#34;." }'
MATCHER = TermMatcher({"cover": COVER, "combat advantage": ADVANTAGE})
ANCHORS = ["combat", "cover", "attacks", "more"]


def link(markdown: str, page: str = "combat") -> str:
    return link_terms(markdown, MATCHER, page=page, anchors_of_headings=ANCHORS)


PAGE = """# Combat

## Cover

Cover protects. Combat advantage helps.

## Attacks

Behind cover, and more cover.

## More

Some `cover` in code, a [cover](other.md) link, and <span>cover</span> in HTML.
"""


def test_first_mention_per_section_only() -> None:
    out = link(PAGE).split("\n")
    assert out[8] == f"Behind [cover](combat.md#cover){COVER_ATTRIBUTES}, and more cover."


def test_not_in_the_defining_section_but_other_terms_are() -> None:
    out = link(PAGE).split("\n")
    assert (
        out[4] == "Cover protects. [Combat advantage](combat.md#combat-advantage)"
        '{ .term-link data-definition="&#43;2." } helps.'
    )


def test_never_in_headings_code_links_or_html() -> None:
    out = link(PAGE).split("\n")
    assert out[2] == "## Cover"
    assert (
        out[12] == "Some `cover` in code, a [cover](other.md) link, and <span>cover</span> in HTML."
    )


def test_text_after_a_link_is_found_after_its_destination() -> None:
    source = "# T\n\n## Attacks\n\nSee [x](cover.md) then cover.\n"
    out = link_terms(source, MATCHER, page="p", anchors_of_headings=["t", "attacks"])
    assert (
        out.split("\n")[4] == f"See [x](cover.md) then [cover](combat.md#cover){COVER_ATTRIBUTES}."
    )


def test_whole_words_only_and_case_kept() -> None:
    source = "# T\n\nCOVERED discovery; Cover-up; COVER.\n"
    out = link_terms(source, MATCHER, page="p", anchors_of_headings=["t"])
    assert out.split("\n")[2] == (
        f"COVERED discovery; Cover-up; [COVER](combat.md#cover){COVER_ATTRIBUTES}."
    )


def test_lists_bold_and_admonitions() -> None:
    source = '# T\n\n- With **cover** here.\n\n!!! erratum "Cover"\n    The cover note.\n'
    out = link_terms(source, MATCHER, page="p", anchors_of_headings=["t"]).split("\n")
    assert out[2] == f"- With **[cover](combat.md#cover){COVER_ATTRIBUTES}** here."
    assert out[4] == '!!! erratum "Cover"'  # an admonition title is never rewritten
    assert out[5] == "    The cover note."  # already linked once in this section


def test_skip_predicate_leaves_placeholders_alone() -> None:
    matcher = TermMatcher({"table": COVER})
    source = "# T\n\n[[table:cover]]\n"
    out = link_terms(
        source,
        matcher,
        page="p",
        anchors_of_headings=["t"],
        skip=lambda content: content.startswith("[[table:"),
    )
    assert out == source


def test_longest_form_wins() -> None:
    matcher = TermMatcher({"advantage": COVER, "combat advantage": ADVANTAGE})
    out = link_terms(
        "# T\n\nGain combat advantage.\n", matcher, page="p", anchors_of_headings=["t"]
    )
    assert "[combat advantage](combat.md#combat-advantage" in out


REACH = LinkTarget("Reach", "combat.md#reach", "How far you reach.", "combat", "reach", "rule")
SHIFT = LinkTarget("Shift", "combat.md#shift", "Move one square.", "combat", "shift", "action")
VERBS = TermMatcher({"reach": REACH, "shift": SHIFT})


def linked(sentence: str) -> bool:
    out = link_terms(f"# T\n\n{sentence}\n", VERBS, page="p", anchors_of_headings=["t"])
    return "](combat.md#" in out


def test_a_noun_term_used_as_a_verb_is_left_alone() -> None:
    # Infinitive "to" with an object, and modals, make the word a verb.
    assert not linked("The XP required to reach a particular level.")
    assert not linked("Creatures the user can reach with a melee weapon.")
    assert not linked("Some spells can’t reach it.")
    # The noun keeps its link, "to" included when no object follows.
    assert linked("A melee attack uses your reach.")
    assert linked("Add 1 to reach when you are large.")
    assert linked("Reach is measured in squares.")


def test_an_action_term_is_a_verb_and_linked_as_one() -> None:
    assert linked("You can shift one square.")
    assert linked("You may want to shift a square away.")


def test_any_definition_reaches_the_page_as_written() -> None:
    from html.parser import HTMLParser

    import markdown

    definition = 'He said "*no*" {x} <b> & _y_ `z` \\ [a](b) — fine'
    target = LinkTarget("Cover", "combat.md#cover", definition, "combat", "cover")
    source = link_terms(
        "# T\n\nTake cover.\n", TermMatcher({"cover": target}), page="p", anchors_of_headings=["t"]
    )
    found: list[dict[str, str | None]] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a":
                found.append(dict(attrs))

    Links().feed(markdown.markdown(source, extensions=["attr_list"]))
    assert [link.get("data-definition") for link in found] == [definition]
    assert found[0]["class"] == "term-link" and "title" not in found[0]
