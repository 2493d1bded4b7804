"""The build marks each cited sentence on its rendered page (hooks/pages/sentences.py)."""

from __future__ import annotations

import pytest

from hooks.content.quotes import sentence_id
from hooks.pages.sentences import Quote, SentenceNotFound, mark_sentences

pytestmark = pytest.mark.unit

PAGE = """\
<h1 id="combat">Combat</h1>
<h2 id="cover">Cover</h2>
<p>A target behind a wall has <a class="term-link" href="#c">cover</a>: attacks
against it take a <strong>&minus;2</strong> penalty. Cover &amp; concealment don&#39;t stack.</p>
<ul>
<li>Half cover: &minus;2.</li>
<li>Full cover: no attack.</li>
</ul>
<h2 id="prone">Prone</h2>
<p>A prone target gives a +2 bonus to melee attacks. Attacks against it take a −2 penalty.</p>
"""


def _between(html: str, quote: str) -> str:
    identifier = sentence_id(quote)
    start = html.index(f'<span class="said" id="{identifier}"></span>')
    start += len(f'<span class="said" id="{identifier}"></span>')
    return html[start : html.index(f'<span class="said-end" id="{identifier}-end"></span>')]


def test_a_sentence_across_a_link_emphasis_and_references_is_marked_exactly() -> None:
    quote = "A target behind a wall has cover: attacks against it take a −2 penalty."
    html, ids = mark_sentences(PAGE, [Quote("cover", quote)])
    assert ids == {sentence_id(quote), f"{sentence_id(quote)}-end"}
    assert _between(html, quote) == (
        'A target behind a wall has <a class="term-link" href="#c">cover</a>: attacks\n'
        "against it take a <strong>&minus;2</strong> penalty."
    )
    # Nothing but the two markers was added.
    assert (
        html.replace(f'<span class="said" id="{sentence_id(quote)}"></span>', "").replace(
            f'<span class="said-end" id="{sentence_id(quote)}-end"></span>', ""
        )
        == PAGE
    )


def test_references_and_list_items_read_as_their_text() -> None:
    quotes = ["Cover & concealment don't stack.", "Half cover: −2. Full cover: no attack."]
    html, _ = mark_sentences(PAGE, [Quote("cover", quote) for quote in quotes])
    assert _between(html, quotes[0]) == "Cover &amp; concealment don&#39;t stack."
    assert _between(html, quotes[1]) == "Half cover: &minus;2.</li>\n<li>Full cover: no attack."


def test_overlapping_quotes_each_get_their_markers() -> None:
    first = "attacks against it take a −2 penalty. Cover & concealment"
    second = "take a −2 penalty."
    html, ids = mark_sentences(PAGE, [Quote("cover", first), Quote("cover", second)])
    assert len(ids) == 4
    assert "Cover &amp; concealment" in _between(html, first)
    assert _between(html, second).endswith("penalty.")


def test_a_quote_is_found_only_in_its_own_section() -> None:
    # "Attacks against it take a −2 penalty." stands under Prone, not under Cover.
    quote = "Attacks against it take a −2 penalty."
    html, _ = mark_sentences(PAGE, [Quote("prone", quote)])
    assert _between(html, quote) == quote
    with pytest.raises(SentenceNotFound, match="#cover"):
        mark_sentences(PAGE, [Quote("cover", "A prone target gives a +2 bonus")])


def test_a_sentence_the_page_no_longer_holds_fails_the_build() -> None:
    with pytest.raises(SentenceNotFound, match="no longer says"):
        mark_sentences(PAGE, [Quote("cover", "A target behind a wall has full cover.")])
    with pytest.raises(SentenceNotFound, match="no section"):
        mark_sentences(PAGE, [Quote("flanking", "A target behind a wall")])


def test_headings_are_not_quotable() -> None:
    with pytest.raises(SentenceNotFound):
        mark_sentences(PAGE, [Quote(None, "Prone A prone target")])


def test_content_cannot_claim_a_sentence_id() -> None:
    quote = "A target behind a wall has cover: attacks against it take a −2 penalty."
    forged = PAGE.replace(
        '<h2 id="prone">', f'<p><span id="{sentence_id(quote)}"></span></p><h2 id="prone">'
    )
    with pytest.raises(SentenceNotFound, match="choose another id"):
        mark_sentences(forged, [Quote("cover", quote)])
