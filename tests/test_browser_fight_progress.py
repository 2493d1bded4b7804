"""A long fight says how far it has got, on a phone: while the rules core works out a
mid-level fight round by round, the docked answer says which round it is on, and the line
goes with the answer. An edit made meanwhile stops that work: the answer to the new
question follows, never the rest of the old one first.

The system is the first of content/systems.yml (as compiled) whose fight calculator
applies; the expected headline is the rules core's own answer to the same inputs.
"""

from __future__ import annotations

import re

from conftest import ARTIFACTS, Device, clock_stood_still, wait_live
from playwright.sync_api import Browser, Page, expect
from test_browser_fight import TYPICAL, headline_of, open_fight

# The same five characters and six foes at a higher level: 60 and 40 hit points, over
# 10 rounds. About a second of the browser's Python: long enough to say where it is.
MID_LEVEL = {**TYPICAL, "c1_hp": "60", "c2_hp": "40"}


def _set_hit_points(page: Page, party: str, opponents: str) -> None:
    """Both sides' hit points changed at once: one request."""
    page.evaluate(
        """([party, opponents]) => {
            document.querySelector('#fight-c1_hp').value = party;
            const hp = document.querySelector('#fight-c2_hp');
            hp.value = opponents;
            hp.dispatchEvent(new Event('input', { bubbles: true }));
        }""",
        [party, opponents],
    )


# The dock while the fight is worked out ("working out round 3 of 10…"): whether some of it
# is on screen, and what it says there; null until it says a round.
SAID_WHILE_WORKING = """() => {
  const dock = document.querySelector("#fight-result .calc-headline");
  if (!/^working out round ([1-9]|10) of 10…$/.test(dock?.dataset.progress ?? "")) return null;
  const box = dock.getBoundingClientRect();
  return {
    inView: box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth,
    said: getComputedStyle(dock, "::after").content,
  };
}"""

# Installed in the calculators' worker: the withdrawals it hears and the messages it sends,
# in the order it heard and sent them (its own handler of the page's messages runs first).
WORKER_LOG = """() => {
  self.heardAndSent = [];
  self.addEventListener("message", ({ data }) => {
    if ("withdraw" in data) self.heardAndSent.push({ withdraw: data.withdraw });
  });
  const send = self.postMessage.bind(self);
  self.postMessage = (message) => {
    self.heardAndSent.push(message);
    send(message);
  };
}"""


def test_a_long_fight_says_which_round_it_is_working_out_in_the_dock(
    browser: Browser, server: str
) -> None:
    watched = Device(browser, server, "phone")
    page = watched.page
    page.clock.install()
    open_fight(page, server, TYPICAL)
    # A phone slower than the test machine: the worker's rounds take longer.
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    dock = page.locator("#fight-result .calc-headline")
    # A busy phone fires the page's timers late: here not at all until the round is said
    # (the page's mark of an answer late by its own timer came after the worker's first
    # report of a round, once, on a loaded machine; the report must say it all the same).
    with clock_stood_still(page):
        # The GM raises both sides' hit points at once: one request, the mid-level fight.
        _set_hit_points(page, MID_LEVEL["c1_hp"], MID_LEVEL["c2_hp"])
        # The line, where it is and what it says, read in one frame: read in two calls,
        # the answer could come between them (it did, once, on a loaded machine).
        seen = page.wait_for_function(SAID_WHILE_WORKING, timeout=30_000).json_value()
    assert seen["inView"], seen
    # Said in words on the dock itself (calculators.css shows the attribute).
    assert re.fullmatch(
        r'"Out of date: " attr\(data-progress\)|"Out of date: working out round .*"',
        seen["said"],
    ), seen
    page.screenshot(path=str(ARTIFACTS / "fight-progress-phone.png"))
    # The answer comes, and the progress line goes with it.
    wait_live(page, "fight")
    expect(dock).to_contain_text(headline_of(MID_LEVEL), timeout=30_000)
    expect(dock).not_to_have_attribute("data-progress", re.compile(".*"))
    said = dock.evaluate("e => getComputedStyle(e, '::after').content")
    assert "working out" not in said, said
    watched.close()


def test_an_edit_during_a_long_fight_stops_its_work_and_answers_the_new_question(
    browser: Browser, server: str
) -> None:
    watched = Device(browser, server, "phone")
    page = watched.page
    open_fight(page, server, TYPICAL)
    dock = page.locator("#fight-result .calc-headline")
    # What the worker itself heard and sent, in its order: a message sent before it heard
    # the withdrawal may still be on its way to a busy page, so the page cannot tell.
    [worker] = [w for w in page.workers if w.url.endswith("calculator-worker.mjs")]
    worker.evaluate(WORKER_LOG)
    # Every progress line the dock says, in order, from here on. Mid-fight, once the dock
    # says one of its first rounds, the GM asks about its first two rounds only: made by
    # the page on the worker's message that said it (heard after the page's own), as a
    # wait from here polls too seldom (on a loaded machine it once saw round 7 first).
    page.evaluate(
        """() => {
            window.saidProgress = [];
            window.editedAt = null; // how much was said before the edit
            const dock = document.querySelector('#fight-result');
            const said = () => dock.querySelector('.calc-headline')?.dataset.progress;
            new MutationObserver(() => {
                const line = said();
                if (line && line !== window.saidProgress.at(-1)) window.saidProgress.push(line);
            }).observe(dock, { attributes: true, subtree: true, childList: true });
            window.rulesCoreWorker.worker.addEventListener('message', () => {
                const early = /^working out round [1-6] of 10…$/.test(said() ?? '');
                if (window.editedAt !== null || !early) return;
                window.editedAt = window.saidProgress.length;
                const rounds = document.querySelector('#fight-rounds');
                rounds.value = '2';
                rounds.dispatchEvent(new Event('input', { bubbles: true }));
            });
        }"""
    )
    _set_hit_points(page, MID_LEVEL["c1_hp"], MID_LEVEL["c2_hp"])
    page.wait_for_function("() => window.editedAt !== null", timeout=30_000)
    said_before_edit = page.evaluate("window.editedAt")
    expect(dock).to_contain_text(headline_of({**MID_LEVEL, "rounds": "2"}), timeout=60_000)
    expect(dock).not_to_have_attribute("data-progress", re.compile(".*"))
    # The 10-round fight's work stopped as the worker heard it withdrawn: it sent nothing
    # more of it, and no answer to it at all; the dock said nothing more of it (only, if it
    # took long enough, the 2-round question's own rounds).
    log = worker.evaluate("self.heardAndSent")
    [old] = {entry["withdraw"] for entry in log if "withdraw" in entry}
    sent_of_old = [entry for entry in log if entry.get("id") == old]
    assert sent_of_old and all("progress" in entry for entry in sent_of_old), sent_of_old
    withdrawn_at = log.index({"withdraw": old})
    assert [entry for entry in log[withdrawn_at:] if entry.get("id") == old] == [], log
    said_after_edit = page.evaluate("window.saidProgress")[said_before_edit:]
    assert all(line.endswith("of 2…") for line in said_after_edit), said_after_edit
    page.screenshot(path=str(ARTIFACTS / "fight-edit-stops-work-phone.png"))
    watched.close()
