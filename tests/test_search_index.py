"""What the site's search indexes (hooks/postprocess/search_index.py): what the pages leave
out of search."""

from __future__ import annotations

from hooks.postprocess.search_index import mark_for_search


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
