// What the widgets of a page say of Python's start, each in its status line: what is
// downloading and how far while it loads, then, where it could not start, why, what the
// figures shown are and what to do, with a button that does it. Once it has started, each
// widget computes. followStart() names the widgets on screen.

import {
  isDownloading,
  isReady,
  isRestarting,
  loadingState,
  loadingText,
  onLoading,
  onStarted,
  restart,
  startFailure,
} from "./calculator-client.mjs";

/**
 * @typedef {object} Widget A widget bound to its form (calculator-widget.mjs, compare-widget.mjs).
 * @property {HTMLElement} section
 * @property {() => void} onReady Python has started: compute.
 * @property {() => void} onFailure Python could not start: say so.
 * @property {string} [loadingSaid] What its status line says while Python loads.
 * @property {(said: string) => void} [sayLoading]
 * @property {() => void} [markPending] Mark the answer shown as not yet its inputs'.
 */

/** @type {Widget[]} */
let current = []; // the widgets of the page on screen

// The widgets on screen from now on; where Python has started, or could not, they hear so
// at once.
/** @param {Widget[]} widgets */
export function followStart(widgets) {
  current = widgets;
  sayOnce();
  if (isReady()) current.forEach((widget) => widget.onReady());
  else if (startFailure()) current.forEach((widget) => widget.onFailure());
}

onStarted(() => {
  sayOnce();
  for (const widget of current) {
    if (isReady()) widget.onReady();
    else widget.onFailure();
  }
});

// Python's start is the page's, not each widget's: until it answers, what every status
// line shows of it (each step, or why it could not start) is said once, by the first
// widget's; the others' are quiet (aria-live off) until each has an answer of its own to say.
function sayOnce() {
  current.forEach((widget, index) => {
    const status = /** @type {Element} */ (widget.section.querySelector(".calc-status"));
    if (index > 0 && !isReady()) status.setAttribute("aria-live", "off");
    else status.removeAttribute("aria-live");
  });
}

// While Python loads, each widget's status line says what is happening (downloading, then
// starting), once per step: the figures, which change ten times a second, are said where
// the answer is read (calculator-client.mjs), not in this live region.
onLoading(() => {
  sayOnce();
  const said = loadingStatus();
  for (const widget of current) {
    if (widget.sayLoading && !isReady() && !startFailure() && widget.loadingSaid !== said) {
      widget.sayLoading(said);
    }
  }
});

// Each fits a phone's line, as the build's does (hooks/pages/calculators.py): the answer
// under it never moves as it changes. How much has arrived, and that it is downloaded once,
// is said where the answer is read (calculator-client.mjs, loadingText).
export function loadingStatus() {
  if (isRestarting()) return "Python stopped: starting it again…";
  const state = loadingState();
  if (!state) return "Loading the calculators' Python…";
  if (isDownloading(state)) {
    return `Downloading the calculators' Python (${(state.total / 1e6).toFixed(1)} MB)…`;
  }
  const text = loadingText(state);
  return text[0].toUpperCase() + text.slice(1);
}

// Python could not start: the widget's status line says why in words, what the figures
// shown are, and what to do, with a button that does it; on a phone it takes the dock's
// place at the bottom of the screen (calculators.css). The out-of-date mark (calc--failed)
// says so too, in place of "computing". The reason is never the raw error (the console
// has it).
/** @param {Element} section */
export function showStartFailure(section) {
  const failure = /** @type {import("./calculator-client.mjs").Failure} */ (startFailure());
  const unstored = failure.kind === "download" && failure.offline; // nothing kept to start from
  const status = /** @type {Element} */ (section.querySelector(".calc-status"));
  const text = /** @type {Element} */ (status.querySelector(".calc-status-text"));
  status.classList.remove("calc-status--busy");
  // Figures for the default inputs stay readable, said to be those; beside other inputs
  // (a shared link) they stay hidden (calc-result--unasked), and the sentence says so.
  const unasked = section.querySelector(".calc-result--unasked");
  text.textContent =
    failureSentence(failure.kind, unstored) +
    (unasked
      ? " No figures are shown for these inputs until it starts."
      : " The figures shown were computed when the site was built, for the default inputs.");
  /** @type {HTMLButtonElement | null} */
  let button = status.querySelector(".calc-retry");
  if (!button) {
    button = document.createElement("button");
    button.type = "button";
    button.className = "calc-retry md-button";
    text.after(button);
  }
  // A damaged file is downloaded again, like one that did not arrive.
  const retried = failure.kind === "download" || failure.kind === "damaged";
  button.textContent =
    !retried ? "Reload the page"
    : !unstored ? "Try again"
    : navigator.onLine ? "Store the calculators for offline use"
    : "Store the calculators for offline use: needs a connection";
  button.onclick = () => {
    if (!retried) location.reload();
    else if (navigator.onLine) retryStart();
    else text.textContent = "Still offline: try again once the device is connected.";
  };
  section.classList.add("calc--failed");
}

/**
 * @param {import("./calculator-client.mjs").FailureKind} kind
 * @param {boolean} unstored
 */
function failureSentence(kind, unstored) {
  if (unstored && navigator.onLine) {
    return "The calculators are not stored on this device, and you are back online: they can be downloaded and stored now.";
  }
  if (unstored) return "You are offline, and the calculators are not stored on this device.";
  if (kind === "download") {
    return "The calculator could not start: part of it could not be downloaded. Check the connection, then try again.";
  }
  if (kind === "damaged") {
    return "The calculator could not start: a file it downloaded arrived damaged. Try again.";
  }
  return "The calculator could not start in this browser. Reloading the page may help.";
}

/** @param {Element} section */
export function clearStartFailure(section) {
  section.classList.remove("calc--failed");
  section.querySelector(".calc-retry")?.remove();
}

// A failed download is tried again when the reader asks (not by itself when the browser
// is back online: Python is 14 MB, and the connection may be a phone's). The visit
// settles again once Python answers, so offline.mjs keeps what it loaded.
function retryStart() {
  if (!startFailure()) return;
  restart();
  for (const widget of current) {
    clearStartFailure(widget.section);
    const status = /** @type {Element} */ (widget.section.querySelector(".calc-status"));
    status.classList.add("calc-status--busy");
    /** @type {Element} */ (status.querySelector(".calc-status-text")).textContent = loadingStatus();
    widget.markPending?.();
  }
}

// Back online, or offline again: the sentence says which.
for (const change of ["online", "offline"]) {
  window.addEventListener(change, () => {
    if (startFailure()) current.forEach((widget) => showStartFailure(widget.section));
  });
}
