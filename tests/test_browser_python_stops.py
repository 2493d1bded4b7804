"""A calculator whose Python stops while answering (its stack overflowed, its memory ran
out: tests/node/python_stops.test.mjs stops a real one) says so where the answer is read,
in a sentence, starts Python again in a new worker at once, and answers the next question;
the question it stopped on is not asked again. Here the worker is made to fail while it
works a request (its clock throws), which the page cannot tell from Python stopping."""

from __future__ import annotations

import pytest
from conftest import CALCULATOR_PAGES, Returning, wait_live
from playwright.sync_api import Browser, expect

from rules_core.calculators import CALCULATORS

pytestmark = pytest.mark.browser

STOPPED = "stopped for the test"
# The worker's clock throws when its loop reads it while working a request (answer(), in
# calculator-worker.mjs), and only then: Playwright's own evaluate reads it too.
FAIL_WHILE_ANSWERING = f"""(() => {{
  const now = performance.now.bind(performance);
  performance.now = () => {{
    if (/\\bat answer\\b/.test(new Error().stack)) throw new Error({STOPPED!r});
    return now();
  }};
}})()"""


def _first_number_field() -> tuple[str, str, str, int]:
    """(page, calculator, field, a value other than its first) of the registry's first
    calculator whose main field takes a whole number."""
    for page, calculators in CALCULATOR_PAGES.items():
        for name in calculators:
            field = next(f for f in CALCULATORS[name].fields if f.name == CALCULATORS[name].primary)
            if field.kind == "int" and field.minimum is not None and field.maximum is not None:
                return page, name, field.name, field.minimum
    raise AssertionError("no calculator's main field takes a whole number: nothing is tested")


def test_python_that_stops_is_started_again_and_the_page_says_so(
    browser: Browser, server: str
) -> None:
    page_name, calculator, field, value = _first_number_field()
    watched = Returning(browser, server, "phone")
    page = watched.page
    workers = []
    page.on("worker", lambda worker: workers.append(worker))
    page.goto(f"{server}calculators/{page_name}/")
    wait_live(page, calculator)
    assert len(workers) == 1
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    control = widget.locator(f'[name="{field}"]')
    workers[0].evaluate(FAIL_WHILE_ANSWERING)
    control.fill(str(value))
    # Said where the answer is read, with what happened and what to do.
    status = widget.locator(".calc-status-text")
    expect(status).to_contain_text("The calculators' Python stopped while working this out")
    expect(status).to_contain_text(STOPPED)
    expect(status).to_contain_text("change one to go on")
    # A new worker, whose Python answers the next question.
    assert len(workers) == 2
    control.fill(str(value + 1))
    wait_live(page, calculator)
    expect(status).to_have_text("")
    # The question it stopped on is answered at once with the same sentence: not asked
    # again (the new Python, whose clock works, would answer it).
    control.fill(str(value))
    expect(status).to_contain_text(STOPPED)
    assert len(workers) == 2
    watched.close()
