"""The calculator pages' API: form inputs in, escaped HTML, field errors and notes out.

The browser's worker (`handle_json`) and the build-time prerender (`handle`) build the
same typed request as the command line, get the same answer and render it with the
calculator's own renderer, so a page and the CLI cannot disagree. Every value that came
from a user is escaped: no input ever becomes markup.

What the page sends (`Request`) and gets back (`Answer`), and the worker's entry point
(`Work`), are declared here once: the page's JavaScript reads them from
types/rules-core-web.d.ts, which hooks/package/browser_seam.py writes from these classes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from html import escape
from typing import Any, Literal, NotRequired, TypedDict

from rules_core.calculators import CALCULATORS, html
from rules_core.dice import DiceError
from rules_core.errors import NotDefined, RulesError
from rules_core.requests import WHOLE, InputErrors, one_line
from rules_core.steps import Steps, finish

__all__ = [
    "Answer",
    "Answered",
    "Computed",
    "Handled",
    "Refused",
    "Request",
    "Work",
    "handle",
    "handle_json",
]


class Request(TypedDict):
    """One calculation, as the page's worker sends it to `handle_json` (as JSON)."""

    calculator: str
    """The calculator's name, as rules_core.calculators lists it ("attack")."""
    inputs: NotRequired[dict[str, str]]
    """The form's values by field name, as the form holds them (a ticked box is "on"); a
    field left out takes its default."""
    base: NotRequired[str]
    """The way from the page to the site root ("../../"), which the answer's links take."""


class Answered(TypedDict):
    """The question answered: its markup, and the same answer in short."""

    ok: Literal[True]
    html: str
    """The answer as escaped HTML: its headline (`.calc-headline`), then the rest."""
    summary: str
    """The headline as plain text, for the Compare pages and screen readers: set as text,
    never parsed."""
    errors: dict[str, str]
    """Empty: an answer refuses no value."""
    message: str
    """Empty; or, where the system's text does not define what was asked, that it does not
    (the markup says so too, with what the text does say)."""
    notes: NotRequired[dict[str, str]]
    """Field name -> a sentence said beside that field with the answer, which it does not
    hold up (a fight's row left out until it is complete)."""


class Refused(TypedDict):
    """The question not answered: what to change, each where it is to be changed."""

    ok: Literal[False]
    html: str
    """Empty."""
    summary: str
    """Empty."""
    errors: dict[str, str]
    """Field name -> why its value is refused, one sentence."""
    message: str
    """What no field holds: the request as a whole (malformed, an unknown calculator), or,
    `incomplete`, what the question still lacks."""
    incomplete: NotRequired[Literal[True]]
    """The question is not yet complete (a fight with no opponent yet): not an error."""
    notes: NotRequired[dict[str, str]]
    """Field name -> what that field would give the question not yet complete."""


type Answer = Answered | Refused
"""What `handle_json` answers a page: one calculation answered or refused."""


class Computed(Answered):
    """`handle`'s answer to its Python callers (the build, the tests): the answer and its
    payload, the calculator's result as the command line's --json prints it."""

    data: dict[str, Any]


type Handled = Computed | Answer
"""What `handle` answers: a computed answer with its payload, or an answer without one (the
system's text does not define what was asked) or a refusal."""

# The site root relative to a page ("", "../../", "/"): a path, never a scheme or a host.
_BASE = re.compile(r"(?:/(?!/))?(?:[A-Za-z0-9._~-]+/)*")


def _undefined(error: NotDefined, base: str) -> Answered:
    links = "".join(html.citation_item(cited, base) for cited in error.citations)
    more = f"<p>What the text does say:</p><ul>{links}</ul>" if links else ""
    rendered = html.Rendered(
        html.headline("Not in this system's text"),
        f'<div class="calc-undefined"><p>{escape(str(error))}</p>{more}</div>',
    )
    answered = _answered(rendered)
    answered["message"] = one_line(error)
    return answered


def _answered(rendered: html.Rendered) -> Answered:
    # The summary is the headline as plain text: the Compare pages and screen readers take
    # it as data (set as text, never parsed), not by looking for the headline's markup.
    summary = rendered.summary
    return {"ok": True, "html": rendered.markup, "summary": summary, "errors": {}, "message": ""}


def _refused(errors: dict[str, str], notes: dict[str, str] | None = None) -> Refused:
    """Values refused, each at its field; or, what the request still lacks as a whole
    (WHOLE: a fight with no opponent yet), the message, `incomplete`, and the notes beside
    the fields that would give it: said as a question not yet complete, not as an error."""
    fields = {name: message for name, message in errors.items() if name != WHOLE}
    refused: Refused = {"ok": False, "html": "", "summary": "", "errors": fields, "message": ""}
    if WHOLE in errors:
        refused["message"] = errors[WHOLE]
        refused["incomplete"] = True
    if notes:
        refused["notes"] = notes
    return refused


def _refused_whole(message: str) -> Refused:
    """The request refused as a whole: no field is the cause."""
    refused = _refused({})
    refused["message"] = message
    return refused


def handle(name: str, inputs: Mapping[str, object], base: str = "") -> Handled:
    """Compute one calculator. Never raises for bad input: errors come back as data.

    A field missing from `inputs` takes the form's default (the prerender sends none).
    """
    return finish(_handled(name, inputs, base))


def _handled(name: str, inputs: Mapping[str, object], base: str) -> Steps[Handled]:
    """`handle` in the calculator's steps."""
    calculator = CALCULATORS.get(name)
    if not _BASE.fullmatch(base):
        base = ""  # only the page's own relative root: no "javascript:" or other host
    if calculator is None:
        return _refused_whole(f"Unknown calculator {name!r}.")
    filled: dict[str, object] = {field.name: field.initial for field in calculator.fields}
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
    answered = _answered(rendered)
    if notes := request.notes():
        answered["notes"] = notes
    return {**answered, "data": answer.payload}


def _for_the_page(handled: Handled) -> Answer:
    """The answer without its payload: the page shows the markup; the payload is for
    Python callers."""
    if "data" not in handled:
        return handled
    answer: Answered = {
        "ok": True,
        "html": handled["html"],
        "summary": handled["summary"],
        "errors": handled["errors"],
        "message": handled["message"],
    }
    if "notes" in handled:
        answer["notes"] = handled["notes"]
    return answer


def handle_json(request: str) -> str:
    """One JSON request (a `Request`) in, one JSON answer (an `Answer`) out. Never raises."""
    return finish(_json_handled(request))


MAX_REQUEST_LENGTH = 65_536
"""The longest request `handle_json` reads, in characters: a fight with every row and
every value at its longest is about a third of it."""
MAX_REQUEST_DEPTH = 16
"""The deepest a request's JSON may nest (a `Request` nests two: itself and its inputs).
Checked before it is parsed: parsing JSON nested some thousands deep overflows the stack
of the browser's Python, which it does not survive."""
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_JSON_BRACKET = re.compile(r"[][{}]")


def _bounded(request: str) -> str:
    """The request, if it is within MAX_REQUEST_LENGTH and MAX_REQUEST_DEPTH; else
    ValueError, before anything parses it."""
    if len(request) > MAX_REQUEST_LENGTH:
        raise ValueError(f"a request of {len(request):,} characters")
    depth = 0
    for bracket in _JSON_BRACKET.findall(_JSON_STRING.sub("", request)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_REQUEST_DEPTH:
            raise ValueError("a request nested too deep")
    return request


def _read(request: str) -> Request:
    """The request as the page sent it; one that is not a `Request` (or is out of bounds:
    `_bounded`) raises ValueError, KeyError, TypeError or AttributeError."""
    data = json.loads(_bounded(request))
    inputs = data.get("inputs", {})
    if not isinstance(inputs, dict):
        raise TypeError("inputs")
    calculator, base = str(data["calculator"]), str(data.get("base", ""))
    return {"calculator": calculator, "inputs": inputs, "base": base}


def _json_handled(request: str) -> Steps[str]:
    response: Answer
    try:
        read = _read(request)
        handled = yield from _handled(read["calculator"], read["inputs"], read["base"])
        response = _for_the_page(handled)
    except (ValueError, KeyError, TypeError, AttributeError):
        response = _refused_whole("The request was malformed.")
    except Exception as error:  # the worker must always get an answer
        response = _refused_whole(f"Internal error: {one_line(error)}")
    return json.dumps(response)


class Work:
    """The worker's entry point: one JSON request (as `handle_json` takes) worked in steps.

    The worker calls `step()` until it returns True, then reads `response`; between steps
    it can tell the page how far the work has got (`done` of `total`: a fight's rounds)
    and let the page's messages in. `stop()` ends work whose question has changed: the
    rest is never computed. A calculator without steps answers in the first `step()`.
    """

    done: int
    """The steps done so far (a fight: its rounds worked out)."""
    total: int
    """The steps in all (0 until the work has said)."""
    response: str
    """The answer, an `Answer` as JSON, once `step()` has returned True; until then empty."""

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
        """End the work where it is: the rest is never computed."""
        self._steps.close()
