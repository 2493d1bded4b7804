// The rules core's worker as promises: one worker for the whole visit (Material's instant
// navigation keeps this module), and ask() resolves with its answer to one request, which
// askPython() gives a widget to show. Where Python could not start, restart() tries again
// with a new worker; where it stopped while answering, a new worker starts it again at once
// (stopped()). Once Python has answered on the page, or could not start, the visit is
// settled (offline.mjs waits for it).

/**
 * @typedef {import("./calculator-worker.mjs").FromWorker} FromWorker
 * @typedef {import("./calculator-worker.mjs").Loading} Loading
 * @typedef {import("./calculator-worker.mjs").FailureKind} FailureKind
 * @typedef {import("./calculator-worker.mjs").Responded} Responded
 * @typedef {import("./calculator-worker.mjs").Failed} Failed
 * @typedef {import("./calculator-worker.mjs").Died} Died
 * @typedef {{id: number, withdrawn: true}} Withdrawn The page withdrew the request.
 * @typedef {Responded | Failed | Died | Withdrawn} Reply What ask() resolves with.
 * @typedef {{kind: FailureKind, detail: string, offline: boolean}} Failure Why Python could
 *   not start, and whether the browser was offline then.
 * @typedef {import("../../../types/rules-core-web").Answer} Answer
 */

// The site root, from where this file lives (assets/javascripts/ under the root): the
// __config block Material wrote is relative to the first page of the visit only.
const ROOT_PATH = new URL("../../", import.meta.url).pathname;

/** @type {Map<number, (reply: Reply) => void>} */
const pending = new Map(); // request id -> resolve: the promise its answer settles
/** @type {Map<number, (done: number, total: number) => void>} */
const progressOf = new Map(); // request id -> onProgress(done, total), until its answer
/** @type {Set<() => void>} */
const started = new Set(); // what to call once Python is ready, or could not start
/** @type {Set<() => void>} */
const loadingHeard = new Set(); // what to call as Python downloads and starts
/** @type {Map<number, string>} */
const asked = new Map(); // request id -> the request as sent, until its answer
// Requests Python stopped on, as sent -> why: never sent again in this visit (the same
// question would stop it again); a changed value is another request.
/** @type {Map<string, string>} */
const stoppedOn = new Map();
// How often Python may stop in a visit and be started again: past it, the page says it
// could not go on (a Python that stops on whatever it is asked).
const MAX_STOPS = 3;
let stops = 0;
let nextId = 1;
/** @type {Worker | null} */
let worker = null;
let ready = false;
// Why Python could not start: {kind, detail} from calculator-worker.mjs, and whether the
// browser was offline then.
/** @type {Failure | null} */
let failure = null;
// How far Python has got while it loads: {done, total} bytes downloaded (total 0 until
// the worker has said); null once it is ready or could not start.
/** @type {Loading | null} */
let loading = null;
let bundle = "";
// Python stopped and is being started again (stopped()): said in the status line until it is.
let restarting = false;
/** @type {string[]} */
let prepare = []; // the calculators of the page the worker was started for

// calculator-boot.js, in the head of a calculator page opened directly, starts the worker
// and imports this module at once, so that how far Python has got is said from its first
// message, before the widgets' own code has arrived; with any message that came before.
export function adopt() {
  const booted = window.rulesCoreWorker;
  if (worker || !booted) return Boolean(worker);
  start(booted.worker);
  for (const event of booted.early) onMessage(event); // e.g. "ready", already sent
  return true;
}

/** @param {ParentNode} page */
export function connect(page) {
  // Each widget names its build's Python bundle (hooks/pages/calculators.py): the worker's
  // name. After an instant navigation (no calculator-boot.js) this module starts it.
  /** @type {HTMLElement | null} */
  const named = page.querySelector(".calc[data-bundle]");
  bundle = named?.dataset.bundle ?? "";
  /** @type {NodeListOf<HTMLElement>} */
  const widgets = page.querySelectorAll(".calc[data-calculator], .calc[data-compare]");
  prepare = [...widgets].map((widget) => widget.dataset.calculator ?? widget.dataset.compare ?? "");
  if (!adopt()) start();
  showLoading(page); // a page of an instant navigation hears no message until the next
}

// How a worker is made: the page's own; an embed's is shared with the other embeds of its
// host page (embed-page.mjs gives shared-python.mjs's pythonWorker).
/** @type {(name: string) => Worker} */
let makeWorker = (name) => new Worker(new URL("./calculator-worker.mjs", import.meta.url), { type: "module", name });

/** @param {(name: string) => Worker} make */
export function makeWorkersWith(make) {
  makeWorker = make;
}

/**
 * @param {Worker | null} [booted]
 * @param {string} [name]
 */
function start(booted, name = bundle) {
  worker = booted ?? makeWorker(name);
  if (!booted) worker.postMessage({ prepare }); // the boot script says it for its own
  window.rulesCoreWorker = { worker, early: [] };
  worker.onmessage = onMessage;
  // An error the worker did not catch, once Python had started: it may answer nothing more.
  worker.onerror = (event) => {
    if (ready) stopped({ id: 0, died: event.message || "the worker failed" });
  };
  loading = { done: 0, total: 0, starting: false }; // until the worker has said what it downloads
  sayLoading();
}

// Python stopped while answering a request (the worker's {id, died}: its stack overflowed,
// its memory ran out): that request is answered with what happened and never asked again,
// and a new worker starts Python again at once. Once it is ready, every widget asks its
// question again (calculator-status.mjs), the request it stopped on answered here at once.
// Past MAX_STOPS in a visit, Python is not started again: that is said as a failed start.
/** @param {Died} data */
function stopped(data) {
  const request = asked.get(data.id);
  if (request !== undefined) stoppedOn.set(request, data.died);
  settle(data);
  /** @type {Worker} */ (worker).terminate();
  ready = false;
  stops += 1;
  console.warn("The calculators' Python stopped:", data.died);
  if (stops > MAX_STOPS) {
    failure = { kind: "error", detail: data.died, offline: false };
    loading = null;
    restarting = false;
    sayLoading();
    for (const callback of started) callback();
    return;
  }
  restarting = true;
  start(null, bundle);
}

// Python could not start (a download failed, the reader was offline): a new worker
// fetches what is missing, past the browser's HTTP cache where a file arrived damaged (it
// may hold that copy). The callbacks of onStarted() hear how it went.
export function restart() {
  if (!failure) return;
  const afresh = failure.kind === "damaged";
  delete document.documentElement.dataset.calculators; // settled again once Python answers
  /** @type {Worker} */ (worker).terminate();
  for (const [id, resolve] of pending) resolve({ id, failed: "the calculator restarted" });
  pending.clear();
  progressOf.clear();
  asked.clear();
  failure = null;
  start(null, afresh ? `${bundle} afresh` : bundle);
}

export const isReady = () => ready;
export const isRestarting = () => restarting;
export const startFailure = () => failure;

// Said where each answer is read while Python loads (calculators.css shows it from the
// page's root, so it holds for every widget, and through an instant navigation): what is
// downloading, how much of it, and that it is downloaded once. A phone's first visit
// downloads some 4 MB here, which takes a slow connection half a minute.
export function loadingText(state = loading) {
  if (!state) return "";
  if (restarting) return "the calculators' Python stopped: starting it again…";
  if (!state.total) return "loading the calculators' Python…";
  const mb = (/** @type {number} */ bytes) => (bytes / 1e6).toFixed(1);
  if (isDownloading(state)) {
    return `downloading the calculators' Python, once per device: ${mb(state.done)} of ${mb(state.total)} MB`;
  }
  return "starting the calculators' Python…";
}

// Whether Python is still downloading: its size is known, and not all of it has arrived
// before Python starts.
/** @param {Loading} state */
export const isDownloading = (state) => state.total > 0 && state.done < state.total && !state.starting;

export const loadingState = () => loading;

/** @param {() => void} callback */
export function onLoading(callback) {
  // Called as Python downloads (at most every 0.1 s) and starts.
  loadingHeard.add(callback);
}

function sayLoading() {
  const root = document.documentElement;
  if (loading) {
    root.setAttribute("data-calc-loading", "");
    // A CSS string (JSON's escapes are CSS's): set through the CSSOM, which the page's
    // Content-Security-Policy leaves open, as no style attribute in markup would be.
    root.style.setProperty("--calc-loading", JSON.stringify(loadingText()));
  } else {
    root.removeAttribute("data-calc-loading");
    root.style.removeProperty("--calc-loading");
  }
  showLoading(document);
  for (const callback of loadingHeard) callback();
}

// The same, for screen readers, by the progress bar beside each widget's status line
// (hooks/pages/calculators.py): its value follows every message, and a progress bar is
// not a live region, so none of them is said as it changes (the status line says each
// step once, calculator-status.mjs). Where Python is not loading, there is none.
/** @param {ParentNode} page */
function showLoading(page) {
  /** @type {NodeListOf<HTMLProgressElement>} */
  const bars = page.querySelectorAll("progress.calc-progress");
  for (const bar of bars) {
    bar.hidden = !loading;
    if (!loading) continue;
    bar.setAttribute("aria-label", "Loading the calculators' Python");
    if (isDownloading(loading)) {
      bar.max = loading.total;
      bar.value = loading.done;
    } else bar.removeAttribute("value"); // starting: how long it takes is not known
    bar.setAttribute("aria-valuetext", loadingText());
  }
}

/** @param {() => void} callback */
export function onStarted(callback) {
  // Called once Python is ready (or failed to start), after each such message.
  started.add(callback);
}

/**
 * @param {string} calculator
 * @param {Record<string, string>} inputs
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} [options]
 * @returns {Promise<Reply>}
 */
export function ask(calculator, inputs, { onProgress, signal } = {}) {
  // Resolves with {response} (rules_core.web's JSON text) or {failed} (a message).
  // onProgress(done, total), if given, hears how far a long calculation has got (a fight:
  // rounds done, rounds in all) while it works; never after the answer. Once `signal`
  // aborts, the worker is told to drop the request (its work stops at its next step) and
  // the promise resolves with {withdrawn: true}: nothing else is heard of it.
  const id = nextId++;
  /** @type {import("../../../types/rules-core-web").Request} */
  const request = { calculator, inputs, base: siteBase() };
  const sent = JSON.stringify(request);
  const stoppedBefore = stoppedOn.get(sent);
  if (stoppedBefore !== undefined) return Promise.resolve({ id, died: stoppedBefore });
  /** @type {Promise<Reply>} */
  const answer = new Promise((resolve) => pending.set(id, resolve));
  if (onProgress) progressOf.set(id, onProgress);
  asked.set(id, sent);
  post({ id, request: sent });
  signal?.addEventListener("abort", () => {
    const resolve = pending.get(id);
    if (!resolve) return; // answered already
    post({ withdraw: id });
    settle({ id, withdrawn: true });
  });
  return answer;
}

// Every request of the page's widgets: show(response) gets rules_core.web's reply, or, where
// Python failed to answer, a refusal that says so. Once the first answer is shown, the visit
// is settled.
/**
 * @param {string} calculator
 * @param {Record<string, string>} inputs
 * @param {(response: Answer) => void} show
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} [options]
 */
export function askPython(calculator, inputs, show, { onProgress, signal } = {}) {
  ask(calculator, inputs, { onProgress, signal })
    .then((data) =>
      "withdrawn" in data ? null
      : "failed" in data ? refusal(`The calculation failed: ${data.failed}`)
      : "died" in data ? refusal(stoppedSentence(data.died))
      : /** @type {Answer} */ (JSON.parse(data.response)),
    )
    // A reply that is not the core's JSON is a failure said in words, never "computing".
    .catch((error) => refusal(`The calculation failed: ${error?.message ?? error}`))
    .then((response) => {
      if (!response) return; // withdrawn: the request that replaced it answers
      show(response);
      settled();
    });
}

/**
 * @param {string} message
 * @returns {import("../../../types/rules-core-web").Refused}
 */
function refusal(message) {
  return { ok: false, html: "", summary: "", errors: {}, message };
}

// What the page says of a question Python stopped on, where its answer is read.
/** @param {string} why */
export const stoppedSentence = (why) =>
  `The calculators' Python stopped while working this out (${why}) and has been started ` +
  "again. These inputs are not asked again: change one to go on.";

function settled() {
  // Once a visit: Python has given its first answer, or could not start. offline.mjs waits
  // for this before it stores the site, which would slow Python's download, start and
  // first answer.
  if (document.documentElement.dataset.calculators === "settled") return;
  document.documentElement.dataset.calculators = "settled";
  document.dispatchEvent(new Event("calculators-settled"));
}

// To the worker, which connect() or adopt() has started before any request.
/** @param {import("./calculator-worker.mjs").ToWorker} message */
function post(message) {
  /** @type {Worker} */ (worker).postMessage(message);
}

/** @param {MessageEvent<FromWorker>} event */
function onMessage({ data }) {
  if ("loading" in data) {
    if (ready || failure) return; // a download still under way as the start ended
    loading = data.loading;
    sayLoading();
    return;
  }
  if ("died" in data) {
    stopped(data);
    return;
  }
  if ("ready" in data || ("failed" in data && !("id" in data))) {
    // How Python started (User Timing): the tests and the benchmark read it.
    if ("ready" in data) performance.mark("calc-python-ready", { detail: { snapshot: data.snapshot } });
    ready ||= "ready" in data;
    restarting = false;
    failure = "ready" in data ? null : { kind: data.kind ?? "error", detail: data.failed, offline: !navigator.onLine };
    loading = null;
    sayLoading();
    for (const callback of started) callback();
    if (ready) return; // settled once Python has answered
    console.warn("The calculator could not start:", failure?.detail);
    settled();
    return;
  }
  if ("progress" in data) {
    progressOf.get(data.id)?.(...data.progress);
    return;
  }
  settle(data);
}

// A request's reply: its promise resolves with it, and it is pending no more.
/** @param {Reply} reply */
function settle(reply) {
  const resolve = pending.get(reply.id);
  pending.delete(reply.id);
  progressOf.delete(reply.id);
  asked.delete(reply.id);
  resolve?.(reply);
}

function siteBase() {
  // The way from the page on screen to the site root ("../../"), as the build-time
  // result's links are written.
  const below = location.pathname.startsWith(ROOT_PATH) ? location.pathname.slice(ROOT_PATH.length) : "";
  const depth = below.split("/").length - 1;
  return depth > 0 ? "../".repeat(depth) : "./";
}
