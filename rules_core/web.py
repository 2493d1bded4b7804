"""The calculator pages' API: form inputs in, escaped HTML, field errors and notes out.

The browser's worker (`handle_json`) and the build-time prerender (`handle`) build the
same typed request as the command line, get the same answer and render it with the
calculator's own renderer, so a page and the CLI cannot disagree. Every value that came
from a user is escaped: no input ever becomes markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from rules_core.calculators import CALCULATORS, html
from rules_core.dice import DiceError
from rules_core.errors import NotDefined, RulesError
from rules_core.requests import WHOLE, InputErrors, one_line
from rules_core.steps import Steps, finish

__all__ = ["Work", "handle", "handle_json"]

# The site root relative to a page ("", "../../", "/"): a path, never a scheme or a host.
_BASE = re.compile(r"(?:/(?!/))?(?:[A-Za-z0-9._~-]+/)*")


def _undefined(error: NotDefined, base: str) -> dict[str, Any]:
    links = "".join(html.citation_item(cited, base) for cited in error.citations)
    more = f"<p>What the text does say:</p><ul>{links}</ul>" if links else ""
    rendered = html.Rendered(
        html.headline("Not in this system's text"),
        f'<div class="calc-undefined"><p>{escape(str(error))}</p>{more}</div>',
    )
    return {**_answered(rendered), "message": one_line(error)}


def _answered(rendered: html.Rendered) -> dict[str, Any]:
    # The summary is the headline as plain text: the Compare pages and screen readers take
    # it as data (set as text, never parsed), not by looking for the headline's markup.
    summary = rendered.summary
    return {"ok": True, "html": rendered.markup, "summary": summary, "errors": {}, "message": ""}


def _refused(errors: dict[str, str], notes: dict[str, str] | None = None) -> dict[str, Any]:
    """Values refused, each at its field; or, what the request still lacks as a whole
    (WHOLE: a fight with no opponent yet), the message, `incomplete`, and the notes beside
    the fields that would give it: said as a question not yet complete, not as an error."""
    fields = {name: message for name, message in errors.items() if name != WHOLE}
    refused = {"ok": False, "html": "", "summary": "", "errors": fields, "message": ""}
    if WHOLE in errors:
        refused |= {"message": errors[WHOLE], "incomplete": True}
    return refused | ({"notes": notes} if notes else {})


def handle(name: str, inputs: Mapping[str, Any], base: str = "") -> dict[str, Any]:
    """Compute one calculator. Never raises for bad input: errors come back as data.

    A field missing from `inputs` takes the form's default (the prerender sends none).
    """
    return finish(_handled(name, inputs, base))


def _handled(name: str, inputs: Mapping[str, Any], base: str) -> Steps[dict[str, Any]]:
    """`handle` in the calculator's steps."""
    calculator = CALCULATORS.get(name)
    if not _BASE.fullmatch(base):
        base = ""  # only the page's own relative root: no "javascript:" or other host
    if calculator is None:
        return {**_refused({}), "message": f"Unknown calculator {name!r}."}
    filled = {field.name: field.initial for field in calculator.fields}
    filled.update({key: value for key, value in inputs.items() if isinstance(key, str)})
    try:
        request = calculator.request.from_inputs(filled)
        answer = yield from calculator.work(request)
        rendered = calculator.render(answer.result, request, base)
    except InputErrors as error:
        return _refused(error.errors, error.notes)
    except NotDefined as error:
        return _undefined(error, base)
    except (RulesError, DiceError) as error:
        # Next to the input it is about (an attack type a situation needs), if it names one
        # the form has; else at the calculator's main field.
        shown = {field.name for field in calculator.request.fields_for(filled)}
        field = getattr(error, "field", None)
        where = field if isinstance(field, str) and field in shown else calculator.primary
        return _refused({where: one_line(error)})
    # Notes are said beside their fields with the answer; a request without any sends
    # none, so every other answer is as it was.
    notes = request.notes()
    return {**_answered(rendered), **({"notes": notes} if notes else {}), "data": answer.payload}


_MALFORMED = {**_refused({}), "message": "The request was malformed."}


def handle_json(request: str) -> str:
    """One JSON request in, one JSON response out. Never raises."""
    return finish(_json_handled(request))


def _json_handled(request: str) -> Steps[str]:
    try:
        data = json.loads(request)
        inputs = data.get("inputs", {})
        if not isinstance(inputs, dict):
            raise TypeError("inputs")
        response = yield from _handled(str(data["calculator"]), inputs, str(data.get("base", "")))
        response.pop("data", None)  # the page shows the markup; the payload is for Python callers
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        response = dict(_MALFORMED)
    except Exception as error:  # the worker must always get an answer
        response = {**_MALFORMED, "message": f"Internal error: {one_line(error)}"}
    return json.dumps(response)


class Work:
    """The worker's entry point: one JSON request (as `handle_json` takes) worked in steps.

    The worker calls `step()` until it returns True, then reads `response`; between steps
    it can tell the page how far the work has got (`done` of `total`: a fight's rounds)
    and let the page's messages in. `stop()` ends work whose question has changed: the
    rest is never computed. A calculator without steps answers in the first `step()`.
    """

    def __init__(self, request: str) -> None:
        self._steps = _json_handled(request)
        self.done = 0
        self.total = 0
        self.response = ""

    def step(self) -> bool:
        """One step of the work; True once the response is ready."""
        try:
            at = next(self._steps)
        except StopIteration as end:
            self.response = str(end.value)
            return True
        self.done, self.total = at.done, at.total
        return False

    def stop(self) -> None:
        self._steps.close()
