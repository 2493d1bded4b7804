"""The calculator API the browser runs: defaults, field errors, escaping, not-defined rules."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from html import escape as html_escape
from pathlib import Path

import pytest
import yaml

from hooks.pages.calculators import expand_calculators, render_calculator, render_form
from rules_core.calculators import CALCULATORS
from rules_core.cli import main
from rules_core.web import MAX_REQUEST_DEPTH, MAX_REQUEST_LENGTH, handle, handle_json

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)"]


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_default_inputs_compute(name: str) -> None:
    result = handle(name, {}, "../../")
    assert result["ok"], result
    assert result["errors"] == {}
    assert result["html"]


def test_every_system_menu_offers_the_systems_of_the_content(capsys) -> None:
    listed = yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"]
    for calculator in CALCULATORS.values():
        for field in calculator.fields:
            if field.name == "system":
                assert [value for value, _ in field.choices] == listed, calculator.name
    assert main(["modifier", "--system", "no-such-system", "--score", "10"]) == 2
    assert f"--system: Choose one of {', '.join(listed)}," in capsys.readouterr().err
    assert handle("modifier", {"system": "no-such-system"})["errors"]["system"].startswith(
        f"Choose one of {', '.join(listed)},"
    )


def test_results_match_the_cli_payload() -> None:
    result = handle("attack", {"system": "into-the-unknown", "mode": "advantage"}, "")
    assert (result["data"]["hit"], result["data"]["roll"]) == ("319/400", "2d20kh1")
    assert "79.75%" in result["html"]
    # Each citation links to its sentence and shows it.
    for cited in result["data"]["citations"]:
        assert cited["url"].startswith("into-the-unknown/") and "#said-" in cited["url"]
        assert f'href="{cited["url"]}"' in result["html"]
        assert html_escape(cited["quote"]) in result["html"]


def test_field_errors_name_their_field() -> None:
    result = handle(
        "attack",
        {"bonus": "abc", "defense": "999", "damage": "10000d10000", "escalation": "9"},
    )
    assert not result["ok"] and result["html"] == ""
    assert result["errors"]["bonus"] == "Enter a whole number such as 7 or -2, not 'abc'."
    assert result["errors"]["defense"] == "Enter a number from -100 to 200."
    assert result["errors"]["escalation"] == "Enter a number from 0 to 6."
    assert "Too many dice" in result["errors"]["damage"]
    assert handle("encounter", {"party": "-2"})["errors"] == {
        "party": "Enter a number from 1 to 100."
    }


def test_library_errors_land_on_the_primary_field() -> None:
    result = handle("damage", {"system": "orcus", "extra_crit": "1d6", "crit": "off"})
    assert not result["ok"]
    assert "only to a critical hit" in result["errors"]["expression"]


def test_a_field_the_system_does_not_define_is_refused_with_its_note() -> None:
    # Resistance in the 3d6 rules depends on the attack's natural roll.
    result = handle("damage", {"system": "3d6-combat", "resistance": "12"}, "../")
    assert result["ok"] and "calc-undefined" in result["html"]
    assert "natural roll" in result["message"]


def test_not_defined_is_plain_and_links_to_what_the_text_says() -> None:
    result = handle("level", {"system": "into-the-unknown"}, "../../")
    assert result["ok"]
    assert "does not define XP and levels" in result["html"]
    assert 'href="../../into-the-unknown/adventuring/#said-gold-can-be-spent-' in result["html"]
    assert "Gold can be spent to gain XP at a rate of 1 gp = 1 XP." in result["html"]


@pytest.mark.parametrize("payload", HOSTILE)
@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_hostile_input_never_becomes_markup(name: str, payload: str) -> None:
    for field in CALCULATORS[name].fields:
        # The HTML is the only markup the page takes from Python; errors become text.
        result = handle(name, {field.name: payload}, payload)
        assert "<script" not in result["html"]
        assert "<img" not in result["html"]
        assert 'href="javascript:' not in result["html"]


def test_unknown_calculator_and_malformed_requests() -> None:
    assert handle("nope", {})["message"] == "Unknown calculator 'nope'."
    assert json.loads(handle_json("not json"))["message"] == "The request was malformed."
    assert json.loads(handle_json('{"inputs": {}}'))["ok"] is False
    response = json.loads(handle_json('{"calculator": "modifier", "inputs": {"score": "18"}}'))
    assert response["ok"] and "<td>+4</td>" in response["html"]
    assert "data" not in response  # the page needs only the markup


def test_a_request_out_of_bounds_is_refused_before_it_is_parsed(monkeypatch) -> None:
    """Nested deeper than the bound, or longer, a request is refused as malformed without
    being parsed (tests/node/cut_library.test.mjs: so it is in the browser's Python, whose
    stack a request 50,000 deep would overflow); at the bounds it is read."""

    def attack(bonus: str) -> str:
        return '{"calculator": "attack", "inputs": {"bonus": ' + bonus + "}}"

    empty = len(attack('""'))
    longest = attack('"' + "x" * (MAX_REQUEST_LENGTH - empty) + '"')
    assert len(longest) == MAX_REQUEST_LENGTH
    # The request and its inputs nest two: a bonus nested 14 deeper is at the bound.
    at_bound = attack("[" * (MAX_REQUEST_DEPTH - 2) + "]" * (MAX_REQUEST_DEPTH - 2))
    brackets_in_a_string = attack('"' + "[{" * 500 + '"')
    loads = json.loads
    loads(handle_json(at_bound))  # the rules data read first, which json.loads reads too
    parsed: list[str] = []
    monkeypatch.setattr(json, "loads", lambda text: parsed.append(text) or loads(text))
    for refused in (
        attack("[" * 50_000 + "]" * 50_000),
        attack("[" * (MAX_REQUEST_DEPTH - 1) + "]" * (MAX_REQUEST_DEPTH - 1)),
        "[" * (MAX_REQUEST_DEPTH + 1),
        longest[:-2] + ' "}}',
    ):
        answer = loads(handle_json(refused))
        assert answer["message"] == "The request was malformed.", refused[:80]
    assert parsed == []
    for read in (at_bound, brackets_in_a_string, longest):
        answer = loads(handle_json(read))
        assert answer["message"] == "" and answer["errors"]["bonus"], read[:80]
    assert len(parsed) == 3


def test_overlong_input_is_refused() -> None:
    result = handle("damage", {"expression": "1" * 5000})
    assert result["errors"]["expression"] == "At most 200 characters."


def test_dice_roller_rolls_only_when_asked() -> None:
    odds = handle("roll", {"expression": "2d6"})
    assert "Press “Roll” to roll." in odds["html"]
    rolled = handle("roll", {"expression": "2d6", "seed": "5", "rolled": "on"})
    assert (
        rolled["data"]["total"]
        == handle("roll", {"expression": "2d6", "seed": "5", "rolled": "on"})["data"]["total"]
    )


def test_widget_is_prerendered_with_the_live_markup() -> None:
    widget = render_calculator("attack", "../../")
    assert handle("attack", {}, "../../")["html"] in widget
    assert "\n\n" not in widget  # one raw HTML block for Markdown
    form = render_form("attack")
    for field in CALCULATORS["attack"].fields:
        assert f'id="attack-{field.name}"' in form or field.name == "rolled"
        assert f'id="attack-{field.name}-error"' in form
    assert 'data-systems="3d6-combat"' in form  # the escalation die is a 3d6 rule


def test_placeholders_are_expanded_and_unknown_ones_fail() -> None:
    page = "# Page\n\n[[calculator:level]]\n\nText `[[calculator:level]]` stays.\n"
    out = expand_calculators(page, "../")
    assert out.count('data-calculator="level"') == 1
    assert "Text `[[calculator:level]]` stays." in out
    with pytest.raises(KeyError, match="no calculator named 'nope'"):
        expand_calculators("[[calculator:nope]]\n", "")


@pytest.mark.parametrize(
    "request_text",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"calculator": "modifier", "inputs": ' + '{"a":' * 50_000 + "1" + "}" * 50_001,
        '{"calculator": "modifier", "inputs": []}',
        '{"calculator": "modifier", "inputs": {"score": [1, {"x": null}], "7": 7}}',
        '{"calculator": ["attack"], "inputs": {}}',
        '"just a string"',
        "null",
        "1e999999",
        '{"calculator": "attack", "inputs": {"bonus": "\\ud800"}}',
    ],
)
def test_handle_json_never_raises(request_text: str) -> None:
    response = json.loads(handle_json(request_text))
    assert set(response) == {"ok", "html", "summary", "errors", "message"}
    assert isinstance(response["ok"], bool)


def test_handle_json_answers_even_when_the_core_breaks(monkeypatch: pytest.MonkeyPatch) -> None:
    from rules_core import web

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(web, "_handled", broken)
    request = '{"calculator": "modifier", "inputs": {}}'
    response = json.loads(handle_json(request))
    assert response["ok"] is False and response["message"]
    work = web.Work(request)  # the worker's way in
    assert work.step()
    assert json.loads(work.response) == response


# ------------------------------------------------------------------ result markup


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_every_result_starts_with_its_headline(name: str) -> None:
    assert handle(name, {}, "")["html"].startswith('<div class="calc-headline">')
    undefined = handle("level", {"system": "into-the-unknown"}, "")
    assert undefined["html"].startswith('<div class="calc-headline">')
    assert '<div class="calc-undefined">' in undefined["html"]


def test_attack_headline_and_the_highlighted_bar_are_labelled() -> None:
    inputs = {"system": "orcus", "bonus": "7", "defense": "18", "situations": "combat-advantage"}
    answer = handle("attack", inputs)
    html = answer["html"]
    assert answer["summary"].startswith("Hit 60.00% · Crit 5.00% · Miss 40.00%")
    assert html.startswith('<div class="calc-headline"><span class="calc-part">Hit 60.00%</span>')
    assert re.search(r'<text class="calc-bar-label"[^>]*>18: 60\.00%</text>', html)
    assert re.search(r"<figcaption>[^<]*18: 60\.00%", html)


def test_orcus_critical_damage_says_the_dice_were_maximised() -> None:
    result = handle("damage", {"system": "orcus", "expression": "2d8+4", "crit": "on"})
    assert "2d8 maximised = 16, + 4" in result["html"]
    assert result["data"]["description"] == "2d8 maximised = 16, + 4"


def test_the_dice_roller_marks_dropped_dice() -> None:
    result = handle("roll", {"expression": "4d6kh3", "rolled": "on", "seed": "3"})
    kept, dropped = result["data"]["dice"][0][:3], result["data"]["dice"][0][3:]
    html = result["html"]
    assert f'<span class="calc-kept">{", ".join(map(str, kept))}</span>' in html
    assert f'<span class="calc-dropped">dropped <s>{dropped[0]}</s></span>' in html
    plain = handle("roll", {"expression": "2d6", "rolled": "on", "seed": "3"})["html"]
    assert "dropped" not in plain


def _attack_answer():
    """An attack's request and answer in the first system whose text has attack rolls."""
    from rules_core.calculators.attack import AttackRequest, run
    from rules_core.systems import get_system, system_slugs

    slug = next(slug for slug in system_slugs() if "attack" in get_system(slug).rules)
    request = AttackRequest(system=slug, bonus=7, defense=18)
    return request, run(request).result


def test_the_attack_breakdown_is_shown_when_the_result_has_one() -> None:
    from dataclasses import replace

    from rules_core.calculators.attack import render

    request, result = _attack_answer()
    assert "Combat advantage" not in render(result, request, "").markup
    terms = (("Attack bonus", 7), ("Combat advantage", 2), ("Prone", -2), ("Defense", 18))
    shown = render(replace(result, odds=replace(result.odds, breakdown=terms)), request, "")
    assert "Attack bonus +7, Combat advantage +2, Prone −2 = +7" in shown.markup


def test_the_attack_chart_shows_the_odds_the_answer_carries() -> None:
    """The page draws the chance to hit by defense from the answer, never works it out again."""
    from dataclasses import replace
    from fractions import Fraction

    from rules_core.calculators.attack import render

    request, result = _attack_answer()
    label = r'<text class="calc-bar-label"[^>]*>18: ([^<]+)</text>'
    assert dict(result.hit_by_defense)[18] != Fraction(1, 8)
    carried = tuple((defense, Fraction(1, 8)) for defense, _ in result.hit_by_defense)
    shown = render(replace(result, hit_by_defense=carried), request, "").markup
    assert re.search(label, shown).group(1) == "12.50%"


# ------------------------------------------------------------------ the form


def _field_block(form: str, calculator: str, field: str) -> str:
    """The opening tag of the field's block (the div holding its control)."""
    position = form.index(f'id="{calculator}-{field}"')
    return form[
        form.rindex("<div ", 0, position) : form.index(">", form.rindex("<div ", 0, position)) + 1
    ]


def test_fields_of_other_systems_are_hidden_when_built() -> None:
    form = render_form("attack")
    default = next(f.default for f in CALCULATORS["attack"].fields if f.name == "system")
    for field in CALCULATORS["attack"].fields:
        if field.kind == "situations":
            continue
        block = _field_block(form, "attack", field.name)
        listed = CALCULATORS["attack"].field_systems(field)
        if listed is None:
            assert "data-systems" not in block and " hidden" not in block, field.name
        else:
            assert f'data-systems="{" ".join(listed)}"' in block, field.name
            assert (" hidden" in block) == (default not in listed), field.name
    for label in re.findall(r'<label class="calc-check"[^>]*data-systems="([^"]+)"([^>]*)>', form):
        assert ("hidden" in label[1]) == (label[0] != default)


def test_rarely_used_fields_are_under_more_options() -> None:
    for name in ("attack", "damage"):
        form = render_form(name)
        more = form[form.index('<details class="calc-more">') :]
        assert more.startswith('<details class="calc-more"><summary>More options</summary>')
        for field in CALCULATORS[name].fields:
            inside = f'id="{name}-{field.name}"' in more
            assert inside == field.more, (name, field.name)
    damage_fields = {f.name: f for f in CALCULATORS["damage"].fields}
    assert not damage_fields["hp"].more and damage_fields["weapon"].more


def test_signed_fields_do_not_ask_for_a_digit_pad() -> None:
    form = render_form("attack")
    bonus = form[form.index('id="attack-bonus"') - 200 : form.index('id="attack-bonus"')]
    assert "inputmode" not in bonus.split("<input")[-1]
    attacks = form[form.index('id="attack-attacks"') - 200 : form.index('id="attack-attacks"')]
    assert 'inputmode="numeric"' in attacks.split("<input")[-1]


def test_grouped_fields_stand_in_one_fieldset_named_after_their_group() -> None:
    grouped = 0
    for name, calculator in CALCULATORS.items():
        form = render_form(name)
        for group in dict.fromkeys(f.group for f in calculator.fields if f.group):
            start = form.index(f"<legend>{group}</legend>")
            fieldset = form[form.rindex("<fieldset", 0, start) : form.index("</fieldset>", start)]
            members = [f for f in calculator.fields if f.group == group]
            for field in calculator.fields:
                inside = f'id="{name}-{field.name}"' in fieldset
                assert inside == (field in members), (name, group, field.name)
            for field in members:  # labelled within the group its legend names
                assert f">{field.label}</label>" in fieldset
            grouped += 1
    assert grouped, "no calculator groups its fields: the test checks nothing"


def test_situations_are_folded_by_whose_they_are() -> None:
    from rules_core.fields import situation_choices

    form = render_form("attack")
    sides = re.findall(
        r'<details class="calc-side" data-systems="([^"]*)"[^>]*>(.*?)</details>', form
    )
    assert sides, "no side of situations is folded"
    choices = situation_choices()
    for systems, inside in sides:
        side = {
            side
            for slug in systems.split()
            for value, _, side in choices[slug]
            if f'id="attack-situations-{slug}-{value}"' in inside
        }
        assert len(side) == 1 and "" not in side, side  # one side per fold
        assert systems.split() == [
            slug for slug in choices if any(s in side for *_, s in choices[slug])
        ]
    for slug, entries in choices.items():
        for value, _, side in entries:
            folded = any(f'id="attack-situations-{slug}-{value}"' in inside for _, inside in sides)
            assert folded == bool(side), (slug, value)


def test_a_widget_the_page_heading_names_has_no_heading_of_its_own() -> None:
    title = CALCULATORS["attack"].title
    named = expand_calculators(f"# {title}\n\n[[calculator:attack]]\n", "../")
    assert "<h2" not in named and f'aria-label="{title}"' in named
    other = expand_calculators("# Several calculators\n\n[[calculator:attack]]\n", "../")
    assert f'<h2 id="attack-title">{title}</h2>' in other


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_every_answer_carries_its_summary_as_data(name: str) -> None:
    """Compare pages and screen readers take the summary, never the headline's markup."""
    from html import unescape

    from rules_core.systems import system_slugs

    for slug in system_slugs():
        response = handle(name, {"system": slug})
        assert response["ok"], response
        assert response["summary"].strip(), (name, slug)
        assert "<" not in response["summary"]
        opening = '<div class="calc-headline">'
        assert response["html"].startswith(opening), (name, slug)
        shown = response["html"][len(opening) : response["html"].index("</div>")]
        # Its why, under it, is a line each of the summary.
        shown = re.sub(r'<span class="calc-why">(.*?)</span>', r"\n\1", shown)
        # Its parts' own text, nothing outside them: a page hides them all where they do
        # not answer the inputs on screen.
        figures = shown.split("\n")[0]
        assert re.fullmatch(r'(<span class="calc-(part|sep)">[^<]*</span>)+', figures), figures
        assert unescape(re.sub(r"<[^>]*>", "", shown)) == response["summary"], (name, slug)
    refused = handle(name, {CALCULATORS[name].primary: "not a value"})
    assert refused["ok"] is False and refused["summary"] == ""


def test_the_bonus_and_the_defense_are_shown_apart_as_a_player_says_them() -> None:
    """Never 'Attack bonus +7, Combat advantage +2, Defense +18 = +27'."""
    from rules_core.mechanics.situations import attack_types, situations
    from rules_core.systems import get_system, system_slugs

    shown = 0
    for slug in system_slugs():
        types = attack_types(get_system(slug))
        inputs = {"bonus": "7", "defense": "18", **({"attack_type": types[-1]} if types else {})}
        chosen = [
            name
            for name, entry in situations(get_system(slug)).items()
            if entry.defense and not entry.attack_type
        ][:1]
        response = handle("attack", {**inputs, "system": slug, "situations": ",".join(chosen)})
        if not response["ok"] or "data" not in response:
            continue
        data = response["data"]
        rows = dict(re.findall(r'<tr><th scope="row">([^<]+)</th><td>(.*?)</td>', response["html"]))
        bonus = rows.get("Bonus", "")
        assert "Defense" not in bonus, bonus
        if "Defense" in rows:
            shown += 1
            assert rows["Defense"].startswith("Defense 18")
            assert rows["Defense"].endswith(f"= {data['defense']}")
    assert shown, "no system's situation changed the defense: nothing was checked"


def test_the_home_page_names_every_calculator_page() -> None:
    from hooks.pages.calculators import DOCS
    from rules_core.calculators.address import PAGES

    home = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in set(PAGES.values()):
        path = f"calculators/{page}.md"
        assert f"({path})" in home, f"docs/index.md does not link {path}"


def test_saves_in_a_row_put_the_expected_rounds_in_the_headline() -> None:
    """'How long does this save-ends effect last?' is answered where the eye lands."""
    from fractions import Fraction

    from rules_core.systems import system_slugs

    checked = 0
    for slug in system_slugs():
        response = handle("check", {"system": slug, "rounds": "3"})
        if not response["ok"] or "data" not in response:
            continue  # this text has no rule for the default save
        checked += 1
        expected = response["data"]["expected_rounds"]
        wanted = (
            "never succeeds"
            if expected is None
            else f"{float(Fraction(expected)):.2f} rounds expected"
        )
        assert wanted in response["summary"], (slug, response["summary"])
        once = handle("check", {"system": slug, "rounds": "1"})["summary"]
        assert "rounds expected" not in once
    assert checked, "no system answered a save: nothing was checked"


def test_every_calculator_module_is_listed_under_its_own_name() -> None:
    package = ROOT / "rules_core" / "calculators"
    declaring = {
        path.stem for path in package.glob("*.py") if "\nCALCULATOR = " in path.read_text("utf-8")
    }
    assert set(CALCULATORS) == declaring
    for name, calculator in CALCULATORS.items():
        assert calculator.name == name
    assert "html" not in CALCULATORS and CALCULATORS.get("base") is None
    assert handle("html", {})["message"] == "Unknown calculator 'html'."


def test_the_worker_imports_only_the_calculator_it_is_asked_for() -> None:
    """A calculator page's first answer waits for the rules core's import in Pyodide."""
    probe = (
        "import json, sys\n"
        "from rules_core.web import handle_json\n"
        "print(json.loads(handle_json(json.dumps({'calculator': 'damage', 'inputs': {}})))['ok'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('rules_core.calculators.')))\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert shown[0] == "True"
    imported = {name.rsplit(".", 1)[1] for name in ast.literal_eval(shown[1])}
    assert imported & set(CALCULATORS) == {"damage"}
