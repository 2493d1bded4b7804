// A link to a section (a search result, a citation, a cross-reference) lands with that
// section at the top of the screen, under the header, by a full load or the theme's
// instant navigation, on a phone too.
//
// On a phone the theme locks the page while its search is open: the body is fixed in place
// (data-md-scrolllock) and, when the search closes, put back where it was. A result tapped
// there opens its page while the lock holds, so the theme's jump to the anchor moves
// nothing, and the release then restores the old offset: the section was left a screen or
// more below. After an instant navigation the theme may also scroll to where the last page
// was (it files that page's offset under the new history entry when the tap scrolled it).
// So on arrival by a link, once the page can scroll, the target is brought into view. A
// return by Back or Forward stays where the reader was.

const LOCK = "data-md-scrolllock";

/** @type {MutationObserver | null} */
let waiting = null; // the wait for the lock's release of the last arrival, if any

function arrivalTarget() {
  try {
    const id = decodeURIComponent(location.hash.slice(1));
    return id ? document.getElementById(id) : null;
  } catch {
    return null; // a malformed address: nothing to bring into view
  }
}

/** @param {Element} target */
function bringIntoView(target) {
  // After the frame is drawn: the theme's own scrolls of this arrival have happened.
  requestAnimationFrame(() => target.isConnected && target.scrollIntoView({ block: "start" }));
}

function arrive() {
  waiting?.disconnect();
  waiting = null;
  const target = arrivalTarget();
  if (!target) return;
  if (!document.body.hasAttribute(LOCK)) {
    bringIntoView(target);
    return;
  }
  // The theme's release removes the lock, then restores the old offset in the same task;
  // an observer's callback runs after that task, so this scroll is the last.
  waiting = new MutationObserver(() => {
    if (document.body.hasAttribute(LOCK)) return;
    /** @type {MutationObserver} */ (waiting).disconnect();
    waiting = null;
    bringIntoView(target);
  });
  waiting.observe(document.body, { attributes: true, attributeFilter: [LOCK] });
}

// Arrival by a link: the page of the link last tapped, or a fresh load that is not a
// return. A return by Back or Forward cannot be told by "popstate": the theme's own jump to
// the anchor is a click on a link to the hash, which fires one too.
const pageOf = (/** @type {string} */ url) => {
  const { pathname, hash } = new URL(url, location.href);
  return pathname + hash;
};
/** @type {string | null} */
let tapped = null;
document.addEventListener(
  "click",
  (event) => {
    /** @type {HTMLAnchorElement | null | undefined} */
    const link = /** @type {Element} */ (event.target).closest?.("a[href]");
    if (link) tapped = pageOf(link.href);
  },
  true,
);
const freshLoad = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType?.("navigation")[0])?.type !== "back_forward";
let first = true;
function onPage() {
  const linked = first ? freshLoad : tapped === pageOf(location.href);
  first = false;
  tapped = null;
  if (linked) arrive();
}
if (window.document$) window.document$.subscribe(onPage);
else onPage();
// A result on the page being read changes only the address's hash; under the search's
// lock the browser's own jump moved nothing either.
window.addEventListener("hashchange", () => {
  if (document.body.hasAttribute(LOCK)) arrive();
});
