// An embed page's calculator (hooks/pages/embed.py), imported by embed-boot.js once the page
// has loaded, its build-time answer on screen. The widget is the site's (calculator-widget.mjs
// and what it imports: the same form, answers, refusals and status lines), bound as a page of
// the site binds it but without what the site adds around it: no dock at the foot of a
// phone's screen (the frame is as tall as its content), no party (a frame on another site
// has storage of its own: the party kept on the site is not in it, and nothing says it is).
//
// Python starts once the embed comes into view (an embed below the fold costs nothing until
// then), in a worker it shares with the other embeds of the host page (shared-python.mjs).
// The frame says its height to the host page, and takes a theme from it (embed-protocol.mjs);
// it reads nothing of the host. The line under the calculator opens its full page, with the
// inputs on screen. Once Python has answered, the site's service worker keeps this page and
// Python for the embed to answer offline on this host (hooks/package/offline.py).

import { connect, makeWorkersWith } from "./calculator-client.mjs";
import { codeMissing, importWithSecondTry } from "./calculator-unbound.mjs";
import { fromHost, heightMessage } from "./embed-protocol.mjs";
import { pythonWorker } from "./shared-python.mjs";

/** @typedef {import("./calculator-widget.mjs").Calculator} Calculator */

const root = document.documentElement;
/** @type {NodeListOf<HTMLElement>} */
const sections = document.querySelectorAll(".calc[data-calculator]");
makeWorkersWith(pythonWorker);
startInView(sections, () => connect(document));
sayHeight();
bind();
keepOffline();

// Python is started as the first widget comes into view (of the host page's screen, for a
// frame: the observer of a frame of another site sees it so).
/**
 * @param {Iterable<Element>} widgets
 * @param {() => void} start
 */
function startInView(widgets, start) {
  if (typeof IntersectionObserver !== "function") return start();
  const seen = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    seen.disconnect();
    start();
  });
  for (const widget of widgets) seen.observe(widget);
}

async function bind() {
  let modules;
  try {
    modules = await importWithSecondTry(() =>
      Promise.all([
        import("./calculator-widget.mjs"),
        import("./calculator-status.mjs"),
        import("./calculator-address.mjs"),
      ]),
    );
  } catch (reason) {
    return codeMissing(document, reason); // the widget's code did not arrive: the embed says so
  }
  const [{ Calculator }, { followStart }, { setAddressSources }] = modules;
  const widgets = [...sections].map((section) => new Calculator(section));
  for (const widget of widgets) widget.start();
  for (const widget of widgets) widget.siblings = widgets;
  // The frame's address keeps its inputs, as a page of the site does: reloaded, it shows them.
  setAddressSources(() => widgets);
  for (const widget of widgets) widget.section.dataset.bound = "";
  root.removeAttribute("data-calc-address");
  followStart(widgets);
  followInputs(widgets);
}

// The line that opens the full page carries the inputs on screen: the same question there.
/** @param {Calculator[]} widgets */
function followInputs(widgets) {
  /** @type {HTMLAnchorElement | null} */
  const full = document.querySelector("a.embed-full");
  if (!full) return;
  const follow = () => {
    const query = new URLSearchParams(widgets.flatMap((widget) => widget.addressEntries()));
    full.search = query.toString();
  };
  for (const widget of widgets) {
    widget.form.addEventListener("input", follow);
    widget.form.addEventListener("change", follow);
  }
  follow();
}

// The frame's height, said to the page that embeds it whenever it changes: its content's
// (the body's), never the frame's own. Measured as the page changes too, not only as it is
// laid out: a browser lays out no frame of another site out of view, whose answer may come
// meanwhile, and the host page's frame has its height before it is scrolled to.
function sayHeight() {
  if (parent === window) return;
  let said = -1;
  let pending = 0;
  const say = () => {
    pending = 0;
    // The body's scrolling height takes in what overflows it (a note laid over the answer).
    const { body } = document;
    const height = heightMessage(Math.max(body.getBoundingClientRect().height, body.scrollHeight));
    if (height.height === said) return;
    said = height.height;
    parent.postMessage(height, "*"); // only its height: any page embedding it may know it
  };
  const soon = () => {
    pending ||= setTimeout(say);
  };
  new ResizeObserver(soon).observe(document.body);
  new MutationObserver(soon).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  addEventListener("message", (event) => {
    if (event.source !== parent) return;
    const message = fromHost(event.data);
    if (!message) return;
    if (message.theme) {
      root.dataset.embedTheme = message.theme;
      root.dispatchEvent(new Event("embed-theme")); // embed-boot.js shows it
    }
    said = -1; // the host listens now: said again
    soon();
  });
  say();
}

// Once Python has answered (or could not start), the site's service worker stores this page
// and Python, from the browser's cache (the worker downloaded it), in this host page's
// partition: the embed answers offline on this host once seen. Not the whole site: a frame
// on a blog is no visit to this site.
function keepOffline() {
  if (!("serviceWorker" in navigator) || !/^https?:$/.test(location.protocol)) return;
  // Under `mkdocs serve` pages change with every save: nothing keeps them (offline.mjs).
  if (root.hasAttribute("data-dev-server")) return;
  document.addEventListener(
    "calculators-settled",
    async () => {
      try {
        await navigator.serviceWorker.register(new URL("../../sw.js", import.meta.url));
        const registration = await navigator.serviceWorker.ready;
        /** @type {import("../../../types/offline-messages").OfflineRequest} */
        const request = { type: "STATUS", page: location.href, keep: false, pythonUsed: true };
        const { port1, port2 } = new MessageChannel();
        port1.onmessage = () => port1.close();
        registration.active?.postMessage(request, [port2]);
      } catch (error) {
        console.warn("This embed cannot be kept for offline use:", error);
      }
    },
    { once: true },
  );
}
