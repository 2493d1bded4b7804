"""A long fight says how far it has got, on a phone: while the rules core works out a
mid-level fight round by round, the docked answer says which round it is on, and the line
goes with the answer.

The system is the first of content/systems.yml (as compiled) whose fight calculator
applies; the expected headline is the rules core's own answer to the same inputs.
"""

from __future__ import annotations

import re

from conftest import ARTIFACTS, Device, wait_live
from playwright.sync_api import Browser, expect
from test_browser_fight import TYPICAL, headline_of, open_fight

# The same five characters and six foes at a higher level: 60 and 40 hit points, over
# 10 rounds. About a second of the browser's Python: long enough to say where it is.
MID_LEVEL = {**TYPICAL, "c1_hp": "60", "c2_hp": "40"}


def test_a_long_fight_says_which_round_it_is_working_out_in_the_dock(
    browser: Browser, server: str
) -> None:
    watched = Device(browser, server, "phone")
    page = watched.page
    open_fight(page, server, TYPICAL)
    # A phone slower than the test machine: the worker's rounds take longer.
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    # The GM raises both sides' hit points at once: one request, the mid-level fight.
    page.evaluate(
        """([party, opponents]) => {
            document.querySelector('#fight-c1_hp').value = party;
            const hp = document.querySelector('#fight-c2_hp');
            hp.value = opponents;
            hp.dispatchEvent(new Event('input', { bubbles: true }));
        }""",
        [MID_LEVEL["c1_hp"], MID_LEVEL["c2_hp"]],
    )
    dock = page.locator("#fight-result .calc-headline")
    expect(dock).to_have_attribute(
        "data-progress", re.compile(r"^working out round ([1-9]|10) of 10…$"), timeout=30_000
    )
    expect(dock).to_be_in_viewport()
    # Said in words on the dock itself (calculators.css shows the attribute).
    said = dock.evaluate("e => getComputedStyle(e, '::after').content")
    assert re.fullmatch(
        r'"Out of date: " attr\(data-progress\)|"Out of date: working out round .*"', said
    ), said
    page.screenshot(path=str(ARTIFACTS / "fight-progress-phone.png"))
    # The answer comes, and the progress line goes with it.
    wait_live(page, "fight")
    expect(dock).to_contain_text(headline_of(MID_LEVEL), timeout=30_000)
    expect(dock).not_to_have_attribute("data-progress", re.compile(".*"))
    said = dock.evaluate("e => getComputedStyle(e, '::after').content")
    assert "working out" not in said, said
    watched.close()
