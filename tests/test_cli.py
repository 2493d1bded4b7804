"""The command line is a public interface: its JSON keys, exact fractions and error exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from command_line import run_cli

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as `python -m rules_core` runs it, in this process (a process of its own
    costs a quarter of a second to start): the last tests run it as its own process."""
    status, out, err = run_cli(list(args))
    return subprocess.CompletedProcess(["rules_core", *args], status, out, err)


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_modifier() -> None:
    out = run_json("modifier", "--system", "orcus", "--score", "15")
    assert out["modifier"] == 2
    cited = out["citations"][0]
    assert cited["url"].startswith("orcus/abilities/#said-")
    assert cited["quote"] and cited["section"] == "Ability Scores and Modifiers"
    # The text output quotes the sentence under its link.
    text = run("modifier", "--system", "orcus", "--score", "15").stdout
    assert f"({cited['url']})\n    “{cited['quote']}”" in text


def test_pointbuy() -> None:
    out = run_json("pointbuy", "--system", "orcus", "--scores", "18,16,9,8,10,10")
    assert (out["cost"], out["budget"], out["remaining"], out["valid"]) == (34, 32, -2, False)
    assert len(out["problems"]) == 2


def test_level() -> None:
    out = run_json("level", "--system", "orcus", "--xp", "826500")
    assert out["level"] == 30 and out["tier"] == "epic"
    assert out["level_bonus"] == 15 and out["xp_for_next_level"] is None
    out = run_json("level", "--system", "orcus", "--xp", "12000")
    assert (out["level"], out["tier"], out["xp_for_next_level"]) == (7, "adventurer", 13000)


def test_attack_fractions_are_exact_strings() -> None:
    out = run_json(
        "attack", "--system", "into-the-unknown", "--bonus", "6", "--defense", "16", "--advantage"
    )
    assert (out["hit"], out["crit"], out["miss"]) == ("319/400", "39/400", "81/400")
    assert out["crit_fail"] is None
    assert out["roll"] == "2d20kh1"
    out = run_json("attack", "--system", "3d6-combat", "--bonus", "0", "--defense", "40")
    assert (out["hit"], out["crit"], out["crit_fail"]) == ("1/54", "1/54", "1/216")
    assert out["interpretations"]


def test_attack_situations_and_damage() -> None:
    out = run_json(
        "attack",
        "--system",
        "orcus",
        "--bonus",
        "5",
        "--defense",
        "16",
        "--situation",
        "combat-advantage",
        "--damage",
        "1d8+4",
        "--attacks",
        "2",
    )
    assert out["hit"] == "3/5"
    assert out["at_least_one_hit"] == "21/25"
    assert out["expected_damage"] == "211/40"  # 11/20 x 17/2 + 1/20 x 12


def test_damage() -> None:
    out = run_json("damage", "--system", "orcus", "3dW+4", "--weapon", "d10", "--crit")
    assert (out["min"], out["max"], out["mean"]) == (34, 34, "34")
    assert out["distribution"] == {"34": "1"}
    out = run_json("damage", "--system", "into-the-unknown", "2d6", "--hp", "12")
    assert out["at_least_hp"] == "1/36"
    assert sum(map(__import__("fractions").Fraction, out["distribution"].values())) == 1


def test_encounter() -> None:
    out = run_json(
        "encounter",
        "--system",
        "orcus",
        "--party",
        "5",
        "--level",
        "3",
        "--monster",
        "3:elite",
        "--monster",
        "2:mook:4",
    )
    assert (out["budget"], out["total_xp"], out["share"]) == (750, 424, "212/375")
    assert out["xp_per_character"] == "424/5"


def test_roll_is_reproducible_with_a_seed() -> None:
    first = run_json("roll", "4d6kh3", "--seed", "7")
    assert first == run_json("roll", "4d6kh3", "--seed", "7")
    assert 3 <= first["total"] <= 18
    assert first["dice"]


def test_text_output_names_sections_and_interpretations() -> None:
    result = run("attack", "--system", "3d6-combat", "--bonus", "2", "--defense", "15")
    assert result.returncode == 0
    assert "Rules applied:" in result.stdout
    assert "Interpretation:" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["modifier", "--system", "3d6-combat", "--score", "12"],
            "does not define ability modifiers",
        ),
        (["modifier", "--system", "orcus", "--score", "abc"], "--score: Enter a whole number"),
        (["modifier", "--system", "nowhere", "--score", "12"], "--system: Choose one of orcus,"),
        (["level", "--system", "into-the-unknown", "--xp", "10"], "Gold for XP"),
        (
            ["attack", "--system", "orcus", "--bonus", "1", "--defense", "10", "--advantage"],
            "does not define advantage",
        ),
        (
            ["attack", "--system", "orcus", "--bonus", "1", "--defense", "10", "--situation", "x"],
            "not a situation",
        ),
        (["damage", "--system", "orcus", "10000d10000"], "dice"),
        (["damage", "--system", "orcus", "3dW"], "weapon die"),
        (["damage", "--system", "orcus", "2d6+"], ""),
        (
            ["encounter", "--system", "orcus", "--party", "-1", "--level", "1"],
            "--party: Enter a number from 1",
        ),
        (
            ["encounter", "--system", "orcus", "--party", "4", "--level", "1", "--monster", "x"],
            "LEVEL:RANK",
        ),
        (["roll", "1d6", "--seed", "-3"], "seed"),
        ([], "required"),
    ],
)
def test_invalid_input_is_one_line_on_stderr_with_status_2(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------ malformed compiled data


def _break(data: dict, path: tuple[str, ...], value: object) -> None:
    """Set (or, for ..., delete) one key deep in the compiled data."""
    *parents, last = path
    for key in parents:
        data = data[key]
    if value is ...:
        del data[last]
    else:
        data[last] = value


@pytest.mark.parametrize(
    ("path", "value", "argv"),
    [
        (
            ("systems", "orcus", "rules", "damage", "critical"),
            ...,
            ["damage", "--system", "orcus", "2d6", "--crit"],
        ),
        (
            ("systems", "orcus", "rules", "point_buy", "budget"),
            "abc",
            ["pointbuy", "--system", "orcus", "--scores", "16,14,13,12,10,8"],
        ),
        (
            ("systems", "orcus", "rules", "attack", "roll"),
            ...,
            ["attack", "--system", "orcus", "--bonus", "5", "--defense", "15"],
        ),
        (("systems", "orcus", "title"), ..., ["modifier", "--system", "orcus", "--score", "9"]),
        (("order",), ..., ["level", "--system", "orcus", "--xp", "10"]),
    ],
)
def test_malformed_compiled_data_is_one_line_never_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, path, value, argv
) -> None:
    from rules_core import systems
    from rules_core.cli import main

    data = json.loads(systems.DATA.read_text("utf-8"))
    _break(data, path, value)
    broken = tmp_path / "systems.json"
    broken.write_text(json.dumps(data), "utf-8")
    monkeypatch.setattr(systems, "DATA", broken)
    systems._load.cache_clear()
    try:
        status = main(argv)
    finally:
        systems._load.cache_clear()
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_a_reader_that_has_gone_ends_the_command_without_a_traceback(output: list[str]) -> None:
    """`python -m rules_core ... | head`, a pager quit early: the pipe's reader is gone when
    the answer is written. The command stops quietly (status 1), as Python's documentation
    says a program should, not with a BrokenPipeError traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "rules_core", "roll", "4d6kh3", "--seed", "7", *output],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader goes before the answer is written
    stderr = process.stderr.read().decode("utf-8")
    assert process.wait(timeout=120) == 1
    assert stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ["attack", "--system", "orcus", "--bonus", "5", "--defense", "16", "--damage", "1d8+4"],
        ["modifier", "--system", "orcus", "--score", "15", "--json"],
        ["modifier", "--system", "orcus", "--score", "abc"],
    ],
)
def test_the_command_as_its_own_process_says_what_it_says_in_this_one(args: list[str]) -> None:
    """`python -m rules_core` in a process of its own: the same status, the same stdout and
    the same stderr as the tests above read from it run in theirs."""
    process = subprocess.run(
        [sys.executable, "-m", "rules_core", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (process.returncode, process.stdout, process.stderr) == run_cli(args)
