"""What the site's search indexes (hooks/postprocess/search_index.py): what the pages leave
out of search, and the site's vocabulary for search's spelling: the words of the text
Pagefind indexed, read back from its own page fragments, with the words of the headings and
of the terms' names."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hooks.content.loader import load_content
from hooks.postprocess.search_index import VOCABULARY, mark_for_search, vocabulary

CONTENT = Path(__file__).resolve().parent.parent / "content"

PAGES = [
    {
        "content": "Combat. Half Cover. A target behind cover is hard to hit: 2d8, it’s covered.",
        "meta": {"title": "Combat", "system": "Orcus"},
        "anchors": [
            {"element": "h1", "id": "combat", "text": "Combat", "location": 0},
            {"element": "h2", "id": "half-cover", "text": "Half Cover", "location": 1},
            {"element": "span", "id": "defines-cover", "title": "Cover", "location": 3},
            {"element": "p", "id": "entry-x", "text": "An entry without a title", "location": 5},
        ],
    },
    {
        "content": "Terms. Opportunity Attack (also: Opportunity Attacks) action.",
        "meta": {"title": "Terms"},
        "anchors": [
            {"element": "p", "id": "term-oa", "title": "Opportunity Attack", "location": 1},
        ],
    },
]


def test_the_vocabulary_counts_the_indexed_words_and_names_the_headings_and_terms() -> None:
    words = vocabulary(PAGES)
    assert words["counts"]["cover"] == 2
    assert words["counts"]["covered"] == 1
    assert words["counts"]["opportunity"] == 2
    # Words of letters only, of three or more: no dice, no "a", no "it" or "s".
    assert not {"2d8", "a", "it", "s", "to"} & set(words["counts"])
    assert words["headings"] == ["combat", "cover", "half", "terms"]
    assert words["terms"] == ["attack", "cover", "opportunity"]
    # A heading or name of two words or more, as its words, for the words asked together.
    assert words["titles"] == ["half cover", "opportunity attack"]


def test_what_a_page_marks_to_leave_out_of_search_is_not_indexed() -> None:
    html = (
        '<article class="md-content__inner md-typeset"><h1 id="combat">Combat</h1>'
        '<p class="page-system" data-search-exclude>Orcus Rulebook</p>'
        '<h2 id="cover">Cover</h2><p class="section-links" data-search-exclude="">'
        '<a href="../../compare/cover/">Compare: Cover and concealment</a></p>'
        '<div class="gm-intro" data-pagefind-ignore="" data-search-exclude="">x</div>'
        "<p>The rule.</p></article>"
    )
    marked = mark_for_search(html, ("orcus", "Orcus"), rules_text=True)
    assert '<p class="page-system" data-search-exclude data-pagefind-ignore>' in marked
    assert '<p class="section-links" data-search-exclude="" data-pagefind-ignore>' in marked
    assert marked.count("data-pagefind-ignore") == 3 + marked.count('class="headerlink"')
    assert "<p>The rule.</p>" in marked


def test_the_built_sites_vocabulary_names_every_glossary_term(site: Path) -> None:
    """Every word of every system's glossary terms (of three letters or more) is a word of a
    term's name in the vocabulary the site serves: a misspelt term can be found."""
    served = json.loads((site / VOCABULARY).read_text(encoding="utf-8"))
    terms = set(served["terms"])
    missing = {
        (slug, entry.term)
        for slug, system in load_content(CONTENT).items()
        for entry in system.glossary
        for word in re.findall(r"[^\W\d_]{3,}", entry.term.casefold())
        if word not in terms
    }
    assert missing == set()
    assert all(served["counts"][word] > 0 for word in terms)


def test_the_pages_that_restate_a_systems_text_say_so() -> None:
    """A chapter is the text (kind rules), the Terms list and the GM screen restate it (kind
    restated): a word they hold is the system's rule; the home page is neither."""
    html = '<article class="md-content__inner md-typeset"><h1 id="t">T</h1><p>x</p></article>'
    system = ("orcus", "Orcus")
    assert 'data-pagefind-meta="kind:rules"' in mark_for_search(html, system, rules_text=True)
    restated = mark_for_search(html, system, restating=True)
    assert '<h1 data-pagefind-meta="kind:restated" id="t">' in restated
    assert 'data-pagefind-meta="kind:' not in mark_for_search(html, system)
