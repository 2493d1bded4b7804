// The address of a calculator page holds every input that differs from the page as built,
// so a link reproduces what the reader saw. setAddressSources() names what to read it from.

// The address is written once the edits pause for this long (see addressLags).
const ADDRESS_IDLE_MS = 300;
export const HANDED_ADDRESS = "calculators-handed-address";

/** @typedef {{addressEntries(): [name: string, value: string][]}} AddressSource */

/** @type {() => AddressSource[]} */
let sources = () => []; // the widgets on screen, each with addressEntries()
let addressTimer = 0; // set while the address lags behind an edit
let addressPath = ""; // the page whose edit it lags behind
/** @type {{path: string, stale: string, fresh: string} | null} */
let lastWrite = null; // the address this page last wrote, and the one it replaced

/** @param {() => AddressSource[]} widgets */
export function setAddressSources(widgets) {
  sources = widgets;
}

// Each history.replaceState sets off work in the page and the browser (the tab's history
// entry, its icon fetched again) that competes with Python for a phone's processor: written
// after every answer, it slowed the answer to the next keystroke. So the address is written
// once the edits pause for ADDRESS_IDLE_MS, and at once when the reader copies the link,
// follows one or leaves the page, or while Python loads (`answering` false: no answer is
// coming yet).
/**
 * @param {string} path
 * @param {{answering: boolean}} python
 */
export function addressLags(path, { answering }) {
  clearTimeout(addressTimer);
  addressTimer = setTimeout(writeAddressNow, ADDRESS_IDLE_MS);
  addressPath = path;
  if (!answering) writeAddressNow();
}

function writeAddressNow() {
  if (!addressTimer) return;
  clearTimeout(addressTimer);
  addressTimer = 0;
  // A change event can come late, from a field losing focus as a link is followed: by
  // then the address is the next page's, which this page's edit must not write.
  if (location.pathname === addressPath) writeAddress();
}

// Capture: before Material's instant navigation takes the click to the next page.
document.addEventListener("click", writeAddressNow, true);
document.addEventListener("visibilitychange", writeAddressNow);
// A reload takes the page's address before the page hears of it. An edit whose address still
// lagged, or was written in between (the lag's timer firing on a busy phone, or the page
// hidden as it unloads), would be lost: so the page's last write is handed on as it leaves,
// and the page a reload opens takes it up if it opened at the address that write replaced.
window.addEventListener("pagehide", () => {
  writeAddressNow();
  if (lastWrite?.path !== location.pathname || lastWrite.fresh !== location.search) return;
  const handed = { ...lastWrite, at: performance.timeOrigin + performance.now() };
  try {
    sessionStorage.setItem(HANDED_ADDRESS, JSON.stringify(handed));
  } catch {
    // Storage refused (private mode, quota): only an edit made as the reload began is lost.
  }
});

export function recallHandedAddress() {
  /** @type {{path: string, stale: string, fresh: string, at: number} | null} */
  let handed = null;
  try {
    handed = JSON.parse(/** @type {string} */ (sessionStorage.getItem(HANDED_ADDRESS)));
    sessionStorage.removeItem(HANDED_ADDRESS);
  } catch {
    return;
  }
  if (!handed) return;
  const [opening] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"));
  // Handed on after this page's navigation began: by the page it reloads, not by a page left
  // earlier whose pagehide came after the next page had already looked.
  const reloaded = opening?.type === "reload" && handed.at >= performance.timeOrigin;
  if (reloaded && handed.path === location.pathname && handed.stale === location.search) {
    history.replaceState(history.state, "", location.pathname + handed.fresh + location.hash);
  }
}

function writeAddress() {
  // The inputs that differ from the page as built, in place of the page's history entry:
  // Back leaves the calculator for the page the reader came from, however many edits were
  // made. Material keeps its scroll position in the entry's state, which stays.
  const params = new URLSearchParams();
  for (const widget of sources()) {
    for (const [name, value] of widget.addressEntries()) params.set(name, value);
  }
  const query = params.toString();
  const url = location.pathname + (query ? "?" + query : "") + location.hash;
  if (url !== location.pathname + location.search + location.hash) {
    lastWrite = { path: location.pathname, stale: location.search, fresh: query ? "?" + query : "" };
    history.replaceState(history.state, "", url);
  }
}
