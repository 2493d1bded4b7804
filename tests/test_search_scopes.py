"""The search index split by system: each system's pages search their own full text and
every other system's page titles; the pages outside any system search those of all."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from hooks.postprocess.search_scopes import split_index

ROOT = Path(__file__).resolve().parent.parent
SLUGS = yaml.safe_load((ROOT / "content" / "systems.yml").read_text(encoding="utf-8"))["systems"]


def _doc(location: str, text: str) -> dict:
    return {"location": location, "title": location or "Home", "text": text}


def test_each_scope_has_its_own_text_and_the_others_titles() -> None:
    index = {
        "config": {"lang": ["en"]},
        "docs": [
            _doc("", "home text"),
            _doc("alpha/", "alpha intro"),
            _doc("alpha/combat/#flanking", "alpha flanking text"),
            _doc("beta/combat/", "beta combat text"),
            _doc("calculators/attack/", "attack text"),
            _doc("alphabet/", "not a system, though it starts like one"),
        ],
    }
    scopes = split_index(index, ["alpha", "beta"])
    assert set(scopes) == {"", "alpha", "beta"}
    texts = {
        slug: {doc["location"]: doc["text"] for doc in scoped["docs"]}
        for slug, scoped in scopes.items()
    }
    for scoped in scopes.values():
        assert scoped["config"] == index["config"]
    assert len(scopes["alpha"]["docs"]) == len(index["docs"])
    assert texts["alpha"]["alpha/combat/#flanking"] == "alpha flanking text"
    assert "alpha/combat/#flanking" not in texts["beta"]  # another system's sections: out
    assert "alpha/combat/#flanking" not in texts[""]
    assert texts["alpha"]["beta/combat/"] == ""
    assert texts["beta"]["beta/combat/"] == "beta combat text"
    assert texts["beta"]["alpha/"] == ""
    assert texts[""]["alpha/"] == "" and texts[""]["beta/combat/"] == ""
    for slug in scopes:
        assert texts[slug]["calculators/attack/"] == "attack text"
        assert texts[slug]["alphabet/"] == "not a system, though it starts like one"


def test_the_built_site_has_one_scope_per_system(site: Path) -> None:
    shared = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    for slug in SLUGS:
        scoped = json.loads((site / "search" / f"scope-{slug}.json").read_text(encoding="utf-8"))
        own = [doc for doc in scoped["docs"] if doc["location"].startswith(f"{slug}/")]
        assert own and any(doc["text"] for doc in own)
        pages = {doc["location"] for doc in shared["docs"] if "#" not in doc["location"]}
        assert pages <= {doc["location"] for doc in scoped["docs"]}  # every page findable
        page = (site / slug / "index.html").read_text(encoding="utf-8")
        assert f'<meta name="search-scope" content="{slug}">' in page
        assert f'<meta name="site-systems" content="{" ".join(SLUGS)}">' in page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'name="search-scope"' not in home
    assert all(not doc["text"] for doc in shared["docs"] if doc["location"].split("/")[0] in SLUGS)
