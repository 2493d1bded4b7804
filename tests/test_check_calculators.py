"""The check and dying calculators: the command line and the pages give one answer, and
each system's form shows the fields its rules data defines."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.calculators import CALCULATORS
from rules_core.cli import main
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

SYSTEMS = system_slugs()


def cli_json(argv: list[str]) -> tuple[int, dict | str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main([*argv, "--json"])
    return status, json.loads(out.getvalue()) if status == 0 else err.getvalue()


def same_answer(argv: list[str], inputs: dict[str, str]) -> None:
    status, cli = cli_json(argv)
    page = handle(argv[0], inputs)
    if status == 0:
        assert page["ok"] and page["data"] == cli
    else:
        # A refusal is the same sentence: at a field, or as the "not defined" message.
        message = page["message"] or " ".join(page["errors"].values())
        assert message and message.split(" See:")[0] in cli


modes = st.sampled_from(["normal", "advantage", "disadvantage", "both"])
MODE_FLAGS = {"normal": [], "advantage": ["--advantage"], "disadvantage": ["--disadvantage"]}
MODE_FLAGS["both"] = ["--both"]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(SYSTEMS),
    st.booleans(),
    st.integers(-5, 12),
    st.one_of(st.none(), st.integers(5, 25)),
    modes,
    st.integers(1, 5),
    st.one_of(st.none(), st.integers(-3, 8)),
)
def test_check_cli_and_page_agree(slug, save, bonus, target, mode, rounds, versus) -> None:
    argv = ["check", "--system", slug, "--bonus", str(bonus), "--rounds", str(rounds)]
    argv += ["--save"] if save else []
    argv += [] if target is None else ["--target", str(target)]
    argv += MODE_FLAGS[mode]
    argv += [] if versus is None else ["--versus", str(versus)]
    inputs = {
        "system": slug,
        "roll": "save" if save else "check",
        "bonus": str(bonus),
        "target": "" if target is None else str(target),
        "mode": mode,
        "rounds": str(rounds),
        "versus": "" if versus is None else str(versus),
    }
    same_answer(argv, inputs)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(SYSTEMS),
    st.integers(-5, 12),
    modes,
    st.integers(0, 3),
    st.integers(0, 3),
    st.lists(st.sampled_from(["no-recoveries", "dropped-by-crit"]), max_size=2),
)
def test_dying_cli_and_page_agree(slug, bonus, mode, failures, successes, options) -> None:
    argv = ["dying", "--system", slug, "--bonus", str(bonus), *MODE_FLAGS[mode]]
    argv += ["--failures", str(failures), "--successes", str(successes), "--turns", "4"]
    for option in options:
        argv += ["--option", option]
    inputs = {
        "system": slug,
        "bonus": str(bonus),
        "mode": mode,
        "failures": str(failures),
        "successes": str(successes),
        "situations": ",".join(options),
        "turns": "4",
    }
    same_answer(argv, inputs)


def _defines(slug: str, *path: str) -> bool:
    value = get_system(slug).rules
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return False
        value = value[key]
    return True


@pytest.mark.parametrize(
    ("calculator", "field", "path"),
    [
        ("check", "mode", ("checks", "advantage")),
        ("check", "escalation", ("saves", "escalation")),
        ("check", "versus", ("checks", "contest")),
        ("check", "group", ("checks", "group")),
        ("check", "successes", ("checks", "extended")),
        ("dying", "mode", ("dying", "advantage")),
        ("dying", "successes", ("dying", "successes")),
        ("dying", "situations", ("dying", "options")),
    ],
)
def test_fields_show_where_the_rules_data_defines_them(
    calculator: str, field: str, path: tuple[str, ...]
) -> None:
    widget = CALCULATORS[calculator]
    spec = next(f for f in widget.fields if f.name == field)
    shown = widget.field_systems(spec)
    expected = tuple(slug for slug in SYSTEMS if _defines(slug, *path))
    assert (shown or SYSTEMS) == expected


def test_the_death_save_options_come_from_the_rules_data() -> None:
    from hooks.pages.calculators import render_form

    form = render_form("dying")
    for slug in SYSTEMS:
        for name, entry in (get_system(slug).rules.get("dying", {}).get("options") or {}).items():
            assert f'data-situation="{name}"' in form
            assert entry["label"] in form


def test_a_bad_group_list_is_refused_at_its_field() -> None:
    result = handle("check", {"system": "into-the-unknown", "roll": "check", "group": "2, two"})
    assert not result["ok"] and "comma" in result["errors"]["group"]


def test_a_contest_of_saves_is_refused() -> None:
    result = handle("check", {"system": "into-the-unknown", "roll": "save", "versus": "2"})
    assert not result["ok"] and "choose Check" in " ".join(result["errors"].values())


def answered(name: str, inputs: dict[str, str]):
    """A calculator's request and typed result, from a form's inputs (its defaults filled)."""
    calculator = CALCULATORS[name]
    filled = {field.name: field.initial for field in calculator.fields} | inputs
    request = calculator.request.from_inputs(filled)
    return request, calculator.run(request).result


# A request of each kind of answer the check calculator gives, the figure its headline
# leads with (an attribute of the mechanic's odds) and the headline's words before it.
CHECK_KINDS = {
    "check": ({"roll": "check", "target": "12"}, "success", "Success"),
    "extended": ({"roll": "check", "target": "12", "successes": "3"}, "success", "Challenge won"),
    "group": ({"roll": "check", "target": "12", "group": "1, -1"}, "success", "Group succeeds"),
    "contest": ({"roll": "check", "versus": "2"}, "win", "Win"),
    "group-contest": ({"roll": "check", "versus": "2", "group": "1, -1"}, "win", "Win"),
}


@pytest.mark.parametrize("kind", CHECK_KINDS)
def test_every_kind_of_check_answer_is_shown_from_its_result(kind: str) -> None:
    """The page reads the typed result it is given: another figure there, another headline."""
    from dataclasses import replace
    from fractions import Fraction

    from rules_core.errors import NotDefined, RulesError

    inputs, figure, words = CHECK_KINDS[kind]
    shown = 0
    for slug in SYSTEMS:
        try:
            request, result = answered("check", {"system": slug, **inputs})
        except (NotDefined, RulesError):
            continue  # this text has no rule for this kind of check
        assert result.kind == kind
        render = CALCULATORS["check"].render
        assert render(result, request, "").summary.startswith(words)
        carried = replace(result, odds=replace(result.odds, **{figure: Fraction(1, 8)}))
        assert render(carried, request, "").summary.startswith(f"{words} 12.50%")
        shown += 1
    assert shown, f"no system's text answers a {kind}: nothing was checked"


def test_the_dying_page_is_shown_from_its_result() -> None:
    """The headline and the turn table read the typed result they are given."""
    from dataclasses import replace
    from fractions import Fraction

    from rules_core.mechanics.dying import Odds

    render = CALCULATORS["dying"].render
    shown = 0
    for slug in SYSTEMS:
        if "dying" not in get_system(slug).rules:
            continue
        request, result = answered("dying", {"system": slug})
        eighths = Odds(Fraction(1, 8), Fraction(2, 8), Fraction(3, 8), Fraction(2, 8))
        carried = replace(result, saves=replace(result.saves, overall=eighths, by_turn=(eighths,)))
        page = render(carried, request, "")
        assert page.summary.split("\n")[0] == "Dead 12.50% · Stable 25.00% · Up 37.50%"
        turns = page.body[page.body.index('<table class="calc-turns">') :]
        assert "<tr><td>1</td><td>12.50%</td><td>25.00%</td><td>37.50%</td><td>25.00%</td>" in turns
        assert "<tr><td>2</td>" not in turns
        shown += 1
    assert shown
