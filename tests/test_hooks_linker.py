"""Glossary linking decided on markdown-it-py tokens: what is linked and what never is."""

from __future__ import annotations

from hooks.pages.linker import (
    DefinitionMarker,
    GlossaryLinker,
    LinkTarget,
    TermMatcher,
    combine,
    link_terms,
    rewrite_prose,
)
from hooks.postprocess.line_breaks import break_after_slashes
from hooks.postprocess.search_index import mark_for_search

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


def test_the_defining_section_marks_where_it_defines_the_term() -> None:
    """In its defining section a term is not linked: its first mention there gets an empty
    anchor titled by the term, where a search for it lands."""
    rewrite = combine(GlossaryLinker(MATCHER, "combat"), DefinitionMarker(MATCHER, "combat"))
    out = rewrite_prose(PAGE, rewrite, anchors_of_headings=ANCHORS).split("\n")
    marker = '<span id="defines-cover" data-pagefind-title="Cover"></span>'
    assert out[4].startswith(f"{marker}Cover protects. [Combat advantage](")
    assert out[8] == f"Behind [cover](combat.md#cover){COVER_ATTRIBUTES}, and more cover."
    # Another page's mention is no definition.
    other = rewrite_prose(PAGE, DefinitionMarker(MATCHER, "other"), anchors_of_headings=ANCHORS)
    assert "defines-" not in other


def test_an_entry_headed_in_bold_is_a_search_section_in_a_chapter_only() -> None:
    """A paragraph or list item a chapter heads with a name in bold ("**Shift:** Move 1
    square") is a section of the search index of its own, titled by the name; an id the
    page has already is not taken twice; a bold sentence is no name."""
    page = (
        '<article class="md-content__inner md-typeset"><h1 id="movement">Movement</h1>'
        '<p id="entry-shift">Taken.</p>'
        "<ul><li><strong>Shift:</strong> Move 1 square.</li></ul>"
        '<p><strong><span class="said" id="said-x"></span>Push.</strong> Away from you.</p>'
        "<p><strong>This whole sentence is in bold for emphasis only.</strong> Text.</p>"
        "</article>"
    )
    marked = mark_for_search(page, ("s", "S"), rules_text=True)
    assert '<li id="entry-shift-2" data-pagefind-title="Shift"><strong>Shift:' in marked
    assert '<p id="entry-push" data-pagefind-title="Push"><strong><span' in marked
    assert "<p><strong>This whole sentence" in marked
    assert 'data-pagefind-meta="kind:rules"' in marked
    reference = mark_for_search(page, ("s", "S"))
    assert "entry-shift-2" not in reference and "kind:rules" not in reference


def test_a_line_may_break_after_a_slash_between_words_of_the_article_only() -> None:
    """Browsers do not break "HUNTING/FORAGING" after its slash: on a narrow screen they
    broke the second word instead. An optional break goes after such a slash in the
    article's text: not in code, a tag's attributes, numbers or dice, nor outside it."""
    page = (
        '<nav><a href="a/b">a/b</a></nav><article class="md-content__inner">'
        '<h2 id="x">Advantage/Disadvantage</h2><p><a href="x/y">HUNTING/FORAGING</a>, '
        "1/2, d/20 and <code>content/a/b.txt</code></p></article>"
    )
    broken = break_after_slashes(page)
    assert '<h2 id="x">Advantage/<wbr>Disadvantage</h2>' in broken
    assert '<a href="x/y">HUNTING/<wbr>FORAGING</a>, 1/2, d/20' in broken
    assert "<code>content/a/b.txt</code>" in broken
    assert broken.startswith('<nav><a href="a/b">a/b</a></nav>')
