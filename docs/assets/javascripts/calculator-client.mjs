// The rules core's worker as promises: one worker for the whole visit (Material's instant
// navigation keeps this module), and ask() resolves with its answer to one request.
// Where Python could not start, restart() tries again with a new worker.

// The site root, from where this file lives (assets/javascripts/ under the root): the
// __config block Material wrote is relative to the first page of the visit only.
const ROOT_PATH = new URL("../../", import.meta.url).pathname;

const pending = new Map(); // request id -> resolve: the promise its answer settles
const progressOf = new Map(); // request id -> onProgress(done, total), until its answer
const started = new Set(); // what to call once Python is ready, or could not start
let nextId = 1;
let worker = null;
let ready = false;
// Why Python could not start: {kind, detail} from calculator-worker.mjs, and whether the
// browser was offline then.
let failure = null;
let bundle = "";

export function connect(page) {
  if (worker) return;
  // calculator-boot.js, in the head of a calculator page opened directly, has usually
  // started the worker already; after an instant navigation this module starts it.
  const booted = window.rulesCoreWorker;
  // Each widget names its build's Python bundle (hooks/pages/calculators.py): the worker's name.
  bundle = page.querySelector(".calc[data-bundle]")?.dataset.bundle ?? "";
  start(booted?.worker);
  for (const event of booted?.early ?? []) onMessage(event); // e.g. "ready", already sent
}

function start(booted) {
  worker =
    booted ?? new Worker(new URL("./calculator-worker.mjs", import.meta.url), { type: "module", name: bundle });
  window.rulesCoreWorker = { worker, early: [] };
  worker.onmessage = onMessage;
}

// Python could not start (a download failed, the reader was offline): a new worker
// fetches what is missing. The callbacks of onStarted() hear how it went.
export function restart() {
  if (!failure) return;
  worker.terminate();
  for (const [id, resolve] of pending) resolve({ id, failed: "the calculator restarted" });
  pending.clear();
  progressOf.clear();
  failure = null;
  start();
}

export const isReady = () => ready;
export const startFailure = () => failure;

export function onStarted(callback) {
  // Called once Python is ready (or failed to start), after each such message.
  started.add(callback);
}

export function ask(calculator, inputs, { onProgress, signal } = {}) {
  // Resolves with {response} (rules_core.web's JSON text) or {failed} (a message).
  // onProgress(done, total), if given, hears how far a long calculation has got (a fight:
  // rounds done, rounds in all) while it works; never after the answer. Once `signal`
  // aborts, the worker is told to drop the request (its work stops at its next step) and
  // the promise resolves with {withdrawn: true}: nothing else is heard of it.
  const id = nextId++;
  const answer = new Promise((resolve) => pending.set(id, resolve));
  if (onProgress) progressOf.set(id, onProgress);
  worker.postMessage({ id, request: JSON.stringify({ calculator, inputs, base: siteBase() }) });
  signal?.addEventListener("abort", () => {
    const resolve = pending.get(id);
    if (!resolve) return; // answered already
    worker.postMessage({ withdraw: id });
    pending.delete(id);
    progressOf.delete(id);
    resolve({ id, withdrawn: true });
  });
  return answer;
}

function onMessage({ data }) {
  if (data.ready || (data.failed && data.id === undefined)) {
    ready ||= Boolean(data.ready);
    failure = data.ready ? null : { kind: data.kind ?? "error", detail: data.failed, offline: !navigator.onLine };
    for (const callback of started) callback();
    return;
  }
  if (data.progress) {
    progressOf.get(data.id)?.(...data.progress);
    return;
  }
  const resolve = pending.get(data.id);
  pending.delete(data.id);
  progressOf.delete(data.id);
  resolve?.(data);
}

function siteBase() {
  // The way from the page on screen to the site root ("../../"), as the build-time
  // result's links are written.
  const below = location.pathname.startsWith(ROOT_PATH) ? location.pathname.slice(ROOT_PATH.length) : "";
  const depth = below.split("/").length - 1;
  return depth > 0 ? "../".repeat(depth) : "./";
}
