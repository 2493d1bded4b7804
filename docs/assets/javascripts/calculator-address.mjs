// The address of a calculator page holds every input that differs from the page as built,
// so a link reproduces what the reader saw. setAddressSources() names what to read it from.

// The address is written once the edits pause for this long (see addressLags).
const ADDRESS_IDLE_MS = 300;
const LAST_EDIT = "calculators-last-edit";

/** @typedef {{addressEntries(): [name: string, value: string][]}} AddressSource */

/** @type {() => AddressSource[]} */
let sources = () => []; // the widgets on screen, each with addressEntries()
let addressTimer = 0; // set while the address lags behind an edit
let addressPath = ""; // the page whose edit it lags behind

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
  keepLastEdit(path);
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
window.addEventListener("pagehide", writeAddressNow);
// A reload opens the address the page had as the reload began, and the page it leaves hears
// of it only after the next page has begun: an edit whose address still lagged would be lost,
// and one written as the page leaves may come after the reloaded page has looked. So each
// edit is also kept at once, beside its history entry, in the tab's sessionStorage (a cheap
// write, where replaceState is not); the page a reload (or Back, Forward) opens on that entry
// takes it up. The entry's key, from the Navigation API, is kept by a reload and by
// replaceState, and is new for every other entry: a link followed, say. The same address
// opened again may keep the key (the browser replaces the entry), but it is no reload.
/** @param {string} path */
function keepLastEdit(path) {
  const entry = globalThis.navigation?.currentEntry?.key;
  if (!entry) return; // no Navigation API (before 2026's browsers): only that edit is lost
  try {
    sessionStorage.setItem(LAST_EDIT, JSON.stringify({ entry, path, address: addressOfInputs() }));
  } catch {
    // Storage refused (private mode, quota): only an edit made as a reload began is lost.
  }
}

export function recallLastEdit() {
  /** @type {{entry: string, path: string, address: string} | null} */
  let last = null;
  try {
    last = JSON.parse(/** @type {string} */ (sessionStorage.getItem(LAST_EDIT)));
    sessionStorage.removeItem(LAST_EDIT);
  } catch {
    return;
  }
  if (!last || last.entry !== globalThis.navigation?.currentEntry?.key || last.path !== location.pathname) return;
  const [opening] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"));
  if (opening?.type !== "reload" && opening?.type !== "back_forward") return;
  if (last.address !== location.search) {
    history.replaceState(history.state, "", location.pathname + last.address + location.hash);
  }
}

/** The inputs that differ from the page as built, as an address's query ("" for none). */
function addressOfInputs() {
  const params = new URLSearchParams();
  for (const widget of sources()) {
    for (const [name, value] of widget.addressEntries()) params.set(name, value);
  }
  const query = params.toString();
  return query ? "?" + query : "";
}

function writeAddress() {
  // The inputs that differ from the page as built, in place of the page's history entry:
  // Back leaves the calculator for the page the reader came from, however many edits were
  // made. Material keeps its scroll position in the entry's state, which stays.
  const url = location.pathname + addressOfInputs() + location.hash;
  if (url !== location.pathname + location.search + location.hash) history.replaceState(history.state, "", url);
}
