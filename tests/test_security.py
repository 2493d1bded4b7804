"""Security: the Content-Security-Policy of every page, and hostile input in the browser.

* `hooks.postprocess.csp` on its own: where the policy goes and which inline scripts it admits.
* Every page the site serves (the sitemap and the 404 page): the policy is the first
  element of its head, has exactly the expected directives, and lists the hash of each
  inline script the page runs; no page has an inline event handler, a `javascript:` URL,
  an inline style (the policy does not allow them) or its charset past the first 1024 bytes.
* Every calculator page in Chromium: script and markup payloads in every URL parameter
  it reads and typed into every text input open no dialog, log no console error, add no
  element, and are shown as text in their field with a message next to it.
"""

from __future__ import annotations

import contextlib
import re
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from conftest import CALCULATOR_PAGES, Returning, serve, wait_live
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from hooks.postprocess.csp import (
    add_content_security_policy,
    allow_added_scripts,
    content_security_policy,
    inline_scripts,
    literal_scripts,
    script_hash,
    theme_scripts,
)

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(1)",
]
# Every directive of the policy but script-src, whose hashes depend on the page.
EXPECTED = {
    "default-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "worker-src": ["'self'"],
    "manifest-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'none'"],
}
JAVASCRIPT_TYPES = {"", "module", "text/javascript", "application/javascript"}


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        assert name not in parsed, f"{name} given twice"
        parsed[name] = sources
    return parsed


# ------------------------------------------------------------------------ hooks.postprocess.csp

PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <script>var a = 1</script>
    <script id="__config" type="application/json">{"base": "."}</script>
    <script src="bundle.js"></script>
    <script type="module">import "./x.mjs"</script>
  </head>
  <body><p>text</p><script>var b = "</scr" + "ipt>"</script></body>
</html>"""


PAGE_SCRIPTS = literal_scripts(["var a = 1", 'import "./x.mjs"', 'var b = "</scr" + "ipt>"'])


def test_policy_is_the_first_element_of_the_head() -> None:
    html = add_content_security_policy(PAGE)
    head = html.index("<head>") + len("<head>")
    assert html[head:].lstrip().startswith('<meta http-equiv="Content-Security-Policy" content="')
    assert html.count("Content-Security-Policy") == 1


def test_only_inline_scripts_that_run_are_hashed() -> None:
    policy = directives(content_security_policy(PAGE, PAGE_SCRIPTS))
    script_src = policy.pop("script-src")
    hashes = {script_hash("var a = 1"), script_hash('import "./x.mjs"')}
    hashes.add(script_hash('var b = "</scr" + "ipt>"'))
    assert script_src[0] == "'self'" and script_src[-1] == "'wasm-unsafe-eval'"
    assert set(script_src[1:-1]) == hashes  # not the JSON block, not the external script
    assert policy == EXPECTED
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src


def test_hashes_are_those_the_browser_computes() -> None:
    # The example of the CSP Level 3 specification; CR LF is hashed as the parser's LF.
    expected = "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"
    assert script_hash("alert('Hello, world.');") == expected
    assert script_hash("a\r\nb") == script_hash("a\nb") == script_hash("a\rb")


def test_the_policy_is_replaced_not_added_twice() -> None:
    once = add_content_security_policy(PAGE, PAGE_SCRIPTS)
    assert add_content_security_policy(once, PAGE_SCRIPTS) == once
    assert add_content_security_policy("<p>no head</p>") == "<p>no head</p>"


# ------------------------------------------------------------------- every built page


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.in_head = False
        self.first_in_head: tuple[str, dict] | None = None
        self.policies: list[str] = []
        self.scripts: list[tuple[dict, str]] = []
        self.handlers: list[str] = []
        self.javascript_urls: list[str] = []
        self.styles: list[str] = []
        self._script: dict | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if tag == "head":
            self.in_head = True
        elif self.in_head and self.first_in_head is None:
            self.first_in_head = (tag, attributes)
        if tag == "meta" and attributes.get("http-equiv", "").lower() == "content-security-policy":
            self.policies.append(attributes.get("content", ""))
        for name, value in attributes.items():
            if name.startswith("on"):
                self.handlers.append(f"<{tag} {name}>")
            if name in ("href", "src", "action", "formaction") and re.match(
                r"\s*javascript:", value, re.I
            ):
                self.javascript_urls.append(f"<{tag} {name}={value}>")
            if name == "style":
                self.styles.append(f"<{tag} style={value}>")
        if tag == "style":
            self.styles.append("<style>")
        if tag == "script":
            self._script, self._text = attributes, []

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_data(self, data):
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def _site_pages(server: str) -> dict[str, bytes]:
    with urllib.request.urlopen(server + "sitemap.xml") as response:
        sitemap = response.read().decode("utf-8")
    paths = [urlsplit(url).path for url in re.findall(r"<loc>([^<]+)</loc>", sitemap)]
    pages = {}
    for path in [*paths, "/404.html"]:
        with urllib.request.urlopen(server + path.lstrip("/")) as response:
            pages[path] = response.read()
    return pages


@pytest.fixture(scope="module")
def site_pages(server: str) -> dict[str, bytes]:
    pages = _site_pages(server)
    assert len(pages) > 60
    return pages


def test_every_page_has_the_policy_first_with_its_script_hashes(site_pages) -> None:
    for path, body in site_pages.items():
        parsed = _Page()
        parsed.feed(body.decode("utf-8"))
        assert len(parsed.policies) == 1, path
        tag, attributes = parsed.first_in_head
        assert tag == "meta" and attributes.get("http-equiv") == "Content-Security-Policy", path
        policy = directives(parsed.policies[0])
        script_src = policy.pop("script-src")
        assert policy == EXPECTED, path
        assert script_src[0] == "'self'" and script_src[-1] == "'wasm-unsafe-eval'", path
        inline = [
            text
            for attributes, text in parsed.scripts
            if "src" not in attributes
            and attributes.get("type", "").strip().lower() in JAVASCRIPT_TYPES
        ]
        assert inline, f"{path}: Material's own inline scripts are expected"
        # Computed here with hashlib on what the HTML parser saw, not with the hooks' regex.
        assert sorted(set(script_src[1:-1])) == sorted({script_hash(t) for t in inline}), path
        assert 0 <= body.find(b"<meta charset") < 1024, f"{path}: charset past 1024 bytes"


def test_no_page_has_inline_handlers_javascript_urls_or_inline_styles(site_pages) -> None:
    found = []
    for path, body in site_pages.items():
        parsed = _Page()
        parsed.feed(body.decode("utf-8"))
        found += [f"{path}: {item}" for item in parsed.handlers + parsed.javascript_urls]
        found += [f"{path}: {item}" for item in parsed.styles]
    assert found == []


# ---------------------------------------------------------------------- the browser


class Hostile(Returning):
    """A watched page that also records every dialog (alert, confirm, prompt)."""

    def __init__(self, browser: Browser, origin: str) -> None:
        super().__init__(browser, origin)
        self.dialogs: list[str] = []
        self.page.on("dialog", self._dialog)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def close(self) -> None:
        assert self.dialogs == []
        super().close()


INJECTED = """() => {
  const all = [...document.querySelectorAll("*")];
  return {
    handlers: all.filter((e) => [...e.attributes].some((a) => a.name.startsWith("on")))
      .map((e) => e.outerHTML.slice(0, 120)),
    images: document.querySelectorAll('img[src="x"], .calc img').length,
    scripts: [...document.scripts].filter((s) => s.textContent.includes("alert")).length,
    elements: document.querySelectorAll(
      ".calc script, .calc iframe, .calc object, .calc embed, .calc img, .calc-error *"
    ).length,
    javascriptLinks: [...document.querySelectorAll("[href], [src], [action]")]
      .filter((e) => /^\\s*javascript:/i.test(
        e.getAttribute("href") || e.getAttribute("src") || e.getAttribute("action")))
      .length,
  };
}"""


def assert_nothing_injected(page: Page) -> None:
    found = page.evaluate(INJECTED)
    assert found == {
        "handlers": [],
        "images": 0,
        "scripts": 0,
        "elements": 0,
        "javascriptLinks": 0,
    }


# The fields (by id) that do not yet show their payload as text as they should: with a message
# beside the field, or, for free text (a combatant's name, which has a maxlength), with none:
# any text is a name, kept and shown as text, never as markup (assert_nothing_injected).
NOT_SHOWN_AS_TEXT = """(shown) => Object.keys(shown).filter((id) => {
  const control = document.getElementById(id);
  const payload = shown[id];
  const invalid = control.getAttribute("aria-invalid") === "true";
  if (control.value !== payload) return true;
  if (control.hasAttribute("maxlength")) return invalid;
  return !invalid || !document.getElementById(`${id}-error`)?.textContent?.trim();
})"""


def shown_as_text_with_messages(page: Page, shown: dict[str, str]) -> None:
    """Every field of `shown` (by id) shows its payload as text, each with its message where
    it has one. Asked of the page in one call while the answers come, then once more to name
    the fields that never did (one call per field and check made the fight's test two minutes
    long)."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            f"(asked) => ({NOT_SHOWN_AS_TEXT})(asked).length === 0",
            arg=shown,
            timeout=60_000,
        )
    assert page.evaluate(NOT_SHOWN_AS_TEXT, shown) == []


def parameters(page: Page) -> list[str]:
    """Every URL parameter a calculator page reads: the names of its form's controls."""
    return page.evaluate(
        "() => [...new Set([...document.querySelectorAll('.calc [name]')].map((c) => c.name))]"
    )


# The elements that have no end tag.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta"})


class _BuiltParameters(HTMLParser):
    """parameters() read from a page as built: the names of the controls inside an element
    of class `calc`."""

    def __init__(self) -> None:
        super().__init__()
        self.inside: list[bool] = []  # for each open element: is it a calculator
        self.names: list[str] = []
        self.texts: list[str] = []  # of those, the text fields'

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        name = attributes.get("name")
        if any(self.inside) and name and name not in self.names:
            self.names.append(name)
            if tag == "input" and attributes.get("type", "text") == "text":
                self.texts.append(name)
        if tag not in VOID:
            self.inside.append("calc" in (attributes.get("class") or "").split())

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID:
            self.inside.pop()


def built_parameters(site: Path, slug: str) -> list[str]:
    """parameters() of the page as built, the text fields' first, each part in the page's
    order."""
    parser = _BuiltParameters()
    parser.feed((site / "calculators" / slug / "index.html").read_text(encoding="utf-8"))
    return parser.texts + [name for name in parser.names if name not in parser.texts]


@pytest.mark.parametrize("slug", list(CALCULATOR_PAGES))
def test_payloads_in_the_address_or_typed_stay_text(
    browser: Browser, server: str, site: Path, slug: str
) -> None:
    """The payloads given to every field by a shared link, each field a payload of its own
    in turn (a page load each, until every payload has been shown in a field on screen:
    mostly one load), then each typed into every field of each system on the last page
    loaded (typed_payloads_stay_text): shown as text, with its message, and nothing
    injected."""
    watched = Hostile(browser, server)
    page = watched.page
    # No page load to read them; the text fields first, so that those on screen together
    # take different payloads.
    names = built_parameters(site, slug)
    assert names
    shown_on_screen: set[str] = set()
    for turn in range(len(PAYLOADS)):
        given = {name: PAYLOADS[(index + turn) % len(PAYLOADS)] for index, name in enumerate(names)}
        page.goto(f"{server}calculators/{slug}/?{urlencode(given)}")
        expect(page.locator(".calc-result").first).to_have_attribute(
            "aria-busy", "false", timeout=60_000
        )
        if turn == 0:  # the names read from the built page are those the page has
            assert sorted(parameters(page)) == sorted(names)
        fields = visible_text_fields(page)
        assert fields
        shown = {field: given[name] for field, name in fields.items()}
        shown_as_text_with_messages(page, shown)
        # A choice keeps one of its own options; a box is ticked only by "on".
        for select in page.locator(".calc select").all():
            options = select.locator("option").evaluate_all("(os) => os.map((o) => o.value)")
            assert select.input_value() in options
        for box in page.locator('.calc input[type="checkbox"][name]').all():
            assert not box.is_checked()
        assert_nothing_injected(page)
        shown_on_screen |= set(shown.values())
        if shown_on_screen == set(PAYLOADS):
            break
    assert shown_on_screen == set(PAYLOADS)
    typed_payloads_stay_text(page, slug)
    watched.close()


def visible_text_fields(page: Page) -> dict[str, str]:
    """The text fields on screen: each one's id, and its name (its parameter)."""
    return page.locator('.calc input[type="text"]:visible').evaluate_all(
        "(fields) => Object.fromEntries(fields.map((field) => [field.id, field.name]))"
    )


BACK_TO_THE_DEFAULTS = """(ids) => {
  const fields = ids.map((id) => document.getElementById(id));
  for (const field of fields) field.value = field.defaultValue;
  for (const field of fields) field.dispatchEvent(new Event("input", { bubbles: true }));
}"""


# The payload put into each field after the first, in one call, each with the input event
# the page's own code sends when it sets a field. Not trusted, so calculator-widget.mjs takes
# it as a value given whole (as when the party's rows fill a field) and answers at once,
# where a typed one waits for a pause in the typing; the first field is typed (fill()), so
# each payload goes both ways. A fill() per field took 55 ms of the test's driving: most of
# the fight's 28 s, for its 36 fields.
GIVEN_WHOLE_TO_THE_OTHERS = """([ids, payload]) => {
  for (const id of ids) {
    const field = document.getElementById(id);
    field.value = payload;
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }
}"""


def wait_all_live(page: Page, slug: str) -> None:
    for calculator in CALCULATOR_PAGES[slug]:
        wait_live(page, calculator)
    expect(page.locator(".calc-error:not(:empty)")).to_have_count(0)


def typed_payloads_stay_text(page: Page, slug: str) -> None:
    """The calculator page of `slug`, open: every field set back to its default (hidden
    ones too: a shared link's payloads fill every system's), then, for each system, each
    payload typed into its first field and given whole to the others, each time shown as
    text with its message and nothing injected."""
    every_field = page.locator('.calc input[type="text"]').evaluate_all(
        "(fields) => fields.map((field) => field.id)"
    )
    page.evaluate(BACK_TO_THE_DEFAULTS, every_field)
    wait_all_live(page, slug)
    systems = page.locator('.calc select[name="system"]')
    choices = systems.first.locator("option").evaluate_all("(os) => os.map((o) => o.value)")
    for choice in choices if systems.count() else [None]:
        if choice is not None:
            systems.first.select_option(choice)  # each system shows its own fields
            wait_all_live(page, slug)
        ids = list(visible_text_fields(page))
        if not ids:  # a system whose text lacks the calculator shows no field but its own
            expect(page.locator(".calc-undefined").first).to_be_visible()
            continue
        for payload in PAYLOADS:
            page.locator(f"#{ids[0]}").fill(payload)  # typed as a reader types it
            page.evaluate(GIVEN_WHOLE_TO_THE_OTHERS, [ids[1:], payload])
            # Every field's message comes with the answer to the last edit.
            shown_as_text_with_messages(page, dict.fromkeys(ids, payload))
            assert_nothing_injected(page)
            page.evaluate(BACK_TO_THE_DEFAULTS, ids)  # so the next payload starts clean
            wait_all_live(page, slug)


def test_payloads_in_a_rules_page_address_stay_text(browser: Browser, server: str) -> None:
    # Material reads ?h= (search highlight) and ?q= (search query) itself.
    watched = Hostile(browser, server)
    page = watched.page
    for payload in PAYLOADS:
        page.goto(f"{server}orcus/combat/?{urlencode({'h': payload, 'q': payload})}")
        page.wait_for_load_state("load")
        expect(page.locator("h1").first).to_be_visible()
        assert_nothing_injected(page)
    watched.close()


VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}`);
});
"""


def test_the_policy_blocks_nothing_the_site_needs(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    # Material's inline scripts run: the palette choice is stored and restored on reload.
    page.goto(server + "orcus/combat/")
    assert page.evaluate("() => typeof __md_get") == "function"
    page.locator("label.md-header__button[for^='__palette']:visible").first.click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    # The search runs in Material's worker.
    page.keyboard.press("/")
    page.keyboard.type("initiative")
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=30_000)
    # The calculators' module worker loads Pyodide (its policy is its own response's).
    page.goto(server + "calculators/dice/?expression=2d6")
    wait_live(page, "roll")
    # A service worker at the site root may register (worker-src 'self').
    with urllib.request.urlopen(server + "sw.js") as response:
        assert response.status == 200
    scope = page.evaluate("() => navigator.serviceWorker.register('/sw.js').then((r) => r.scope)")
    assert scope == server
    page.goto(server + "404.html")
    assert page.evaluate("() => window.__violations") == []
    assert errors == []
    # And it is enforced: an inline script or handler added to the page does not run.
    page.evaluate(
        """() => {
      const box = document.createElement("div");
      box.innerHTML = '<img src="data:," onerror="window.__ran = 1">';
      const script = document.createElement("script");
      script.textContent = "window.__ran = 2";
      document.body.append(box, script);
    }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.__ran") is None
    blocked = page.evaluate("() => window.__violations")
    assert any(v.startswith("script-src-attr") for v in blocked), blocked
    assert any(v.startswith("script-src-elem") for v in blocked), blocked
    context.close()


THEME = theme_scripts([Path(__import__("material").__file__).parent / "templates"])
# Scripts that reach a page from content, wherever the theme prints content: each sets a
# mark of its own, and none may run.
INJECTIONS = {
    # A title that breaks out of <title> (a script inside it is text, not code).
    "title": ("</title>", "</title><script>window.__marks.push('title')</script>"),
    "nav": ('<nav class="md-nav', "<script>window.__marks.push('nav')</script><nav class=\"md-nav"),
    "header": (
        '<header class="md-header',
        "<script>window.__marks.push('header')</script><header class=\"md-header",
    ),
    "body": ("<article", "<script>window.__marks.push('body')</script><article"),
    "end": ("</body>", "<script>window.__marks.push('end')</script></body>"),
}


def _injected(site: Path, allowed) -> str:
    """The built combat page, its policy removed, a script injected in each place, and its
    policy made again by the build's function."""
    html = (site / "orcus" / "combat" / "index.html").read_text(encoding="utf-8")
    html = re.sub(r'\s*<meta http-equiv="Content-Security-Policy"[^>]*>', "", html, count=1)
    for where, (anchor, replacement) in INJECTIONS.items():
        assert anchor in html, f"the theme's {where} moved"
        html = html.replace(anchor, replacement, 1)
    return add_content_security_policy(html, allowed)


def test_a_script_injected_anywhere_in_a_page_is_blocked(
    browser: Browser, site: Path, tmp_path: Path
) -> None:
    injected = [f"window.__marks.push('{where}')" for where in INJECTIONS]
    pages = {
        "built": _injected(site, THEME),
        # The same scripts, had the theme written them: they run, so the check can see them.
        "allowed": _injected(site, (*THEME, *literal_scripts(injected))),
    }
    for name, html in pages.items():
        (tmp_path / "orcus" / name).mkdir(parents=True)
        (tmp_path / "orcus" / name / "index.html").write_text(html, encoding="utf-8")
    httpd = serve(tmp_path)
    origin = f"http://127.0.0.1:{httpd.server_address[1]}/"
    context = browser.new_context()
    context.add_init_script(VIOLATIONS + "window.__marks = [];")
    try:
        page = context.new_page()
        page.goto(origin + "orcus/allowed/")
        assert sorted(page.evaluate("() => window.__marks")) == sorted(INJECTIONS)
        page.goto(origin + "orcus/built/")
        page.wait_for_timeout(200)
        assert page.evaluate("() => window.__marks") == []
        blocked = page.evaluate("() => window.__violations")
        assert len([v for v in blocked if v.startswith("script-src-elem inline")]) == len(
            INJECTIONS
        ), blocked
        # The theme's own scripts ran: the palette helper it defines is there.
        assert page.evaluate("() => typeof __md_get") == "function"
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()


def test_the_allow_list_comes_from_the_theme_and_admits_every_script_it_writes(
    site: Path,
) -> None:
    assert THEME, "the theme's templates hold no inline script: the allow-list is empty"
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        policy = directives(
            re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)[1].replace(
                "&quot;", '"'
            )
        )
        hashes = set(policy["script-src"][1:-1])
        assert hashes == {script_hash(text) for text in inline_scripts(html)}, path


def test_scripts_outside_the_allow_list_get_no_hash_wherever_they_are() -> None:
    html = (
        "<html><head><title><script>inTitle()</script></title><script>siteOwn()</script>"
        "</head><body><nav><script>inNav()</script></nav><article><script>stolen()</script>"
        "</article><script>siteFooter()</script></body></html>"
    )
    policy = directives(
        content_security_policy(html, literal_scripts(["siteOwn()", "siteFooter()"]))
    )
    assert script_hash("siteOwn()") in policy["script-src"]
    assert script_hash("siteFooter()") in policy["script-src"]
    for text in ("inTitle()", "inNav()", "stolen()"):
        assert script_hash(text) not in policy["script-src"]


def test_the_dev_servers_live_reload_script_is_allowed_only_where_it_is_added() -> None:
    from mkdocs.livereload import LiveReloadServer

    content = "<script>stolen()</script>"
    built = add_content_security_policy(
        f"<html><head><script>siteOwn()</script></head><body>{content}</body></html>",
        literal_scripts(["siteOwn()"]),
    )
    # MkDocs' own injection, as `mkdocs serve` runs it on each page it serves.
    served = LiveReloadServer._inject_js_into_html(None, built.encode(), 1234).decode()
    reload_script = inline_scripts(served)[-1]
    assert "livereload" in reload_script
    assert script_hash(reload_script) not in built
    policy = directives(re.search(r'content="([^"]*)"', allow_added_scripts(built, served))[1])
    assert script_hash(reload_script) in policy["script-src"]
    assert script_hash("siteOwn()") in policy["script-src"]
    assert script_hash("stolen()") not in policy["script-src"]
