// The calculators' worker: runs the rules core in Pyodide, off the page's thread, and stays
// warm between requests. This module is its message loop; Python starts from the bundle in
// python-start.mjs.
//
// The page sends {id, request} (request: a JSON string, as rules_core.web.handle_json
// takes) and gets back {id, response}, after {id, progress: [done, total]} while a long one
// works (a fight: rounds done); {loading: {done, total, starting}} while Python downloads
// (bytes; `starting` once what Python starts from has arrived: it starts while the rules
// core's wheel comes); {ready: true} once Python and the core are loaded, or {failed,
// kind} if they could not be (kind: why, see FailureKind); {id, died} where Python stopped
// while working a request (workRequests): the page then starts a new worker. A message
// not of the shapes below is ignored (toWorker). {withdraw: id} says the page no
// longer wants that answer (the reader changed the question): its work stops at its next
// step, or never starts, and nothing is sent back for it. {prepare: [names]}, sent first,
// names the page's calculators: their modules are imported before Python says it is ready,
// so the first answer is computed at once.
//
// The page names its build's bundle as the worker's name: the runtime and the rules core
// are served under assets/pyodide/<name>/, so a page never runs another build's rules core.
// (Not a query string: a response from the service worker's cache would drop it.) A name
// that ends in " afresh" (a start tried again after a damaged download) fetches every file
// past the browser's HTTP cache.

// The messages between the page (calculator-client.mjs, calculator-boot.js) and this worker,
// declared once here. The request and the answer inside them are rules_core.web's, whose
// types are generated from the Python (types/rules-core-web.d.ts).
/**
 * @typedef {import("../../../types/rules-core-web").Work} Work
 * @typedef {(request: string) => Work & {destroy(): void}} WorkClass rules_core.web.Work as
 *   Pyodide gives it: called (not constructed) with a Request as JSON; each work a proxy
 *   the worker destroys once done
 *
 * @typedef {{prepare: string[]}} Prepare The page's calculators, sent first.
 * @typedef {{id: number, request: string}} Ask One request: a rules_core.web Request as JSON.
 * @typedef {{withdraw: number}} Withdraw The page no longer wants the answer to request `id`.
 * @typedef {Prepare | Ask | Withdraw} ToWorker What the page sends.
 *
 * @typedef {"download" | "damaged" | "error"} FailureKind Why Python could not start, for
 *   the page to say in words: "download" (a file of the bundle did not arrive: offline, or
 *   the connection failed), "damaged" (a file arrived, but not as this build wrote it: cut
 *   short or altered on the way, or another build's) or "error" (Python itself failed).
 * @typedef {{done: number, total: number, starting: boolean}} Loading How far Python's
 *   download has got, in bytes (total 0 until known); `starting` once Python starts.
 * @typedef {{loading: Loading}} Downloading
 * @typedef {{ready: true, snapshot: boolean}} Ready Python and the rules core are loaded;
 *   `snapshot`: restored from the bundle's snapshot (python-snapshot.mjs), not started.
 * @typedef {{failed: string, kind: FailureKind}} NotStarted Python could not start: no id.
 * @typedef {{id: number, progress: [done: number, total: number]}} Progress How far a long
 *   request has got (a fight: rounds done, rounds in all).
 * @typedef {{id: number, response: string}} Responded The answer: a rules_core.web Answer as JSON.
 * @typedef {{id: number, failed: string}} Failed The request could not be worked: Python
 *   did not start.
 * @typedef {{id: number, died: string}} Died Python stopped while working the request (the
 *   error): it answers nothing more, and the page starts a new worker.
 * @typedef {Downloading | Ready | NotStarted | Progress | Responded | Failed | Died} FromWorker
 *   What the worker sends.
 */

// A calculation's progress is said only once it has taken PROGRESS_AFTER_MS: a quick
// answer never flashes a progress line before it.
export const PROGRESS_AFTER_MS = 150;
// Work in steps lets the page's messages in at least this often, so a withdrawn request's
// work stops within about this much (and one step) of the page's asking.
export const SLICE_MS = 20;

// One request worked by rules_core.web's Work, step by step: post(message) gets its
// progress messages while Python works (posted between steps, they reach the page at
// once), then its answer. Between steps, every SLICE_MS or so, pause() lets the worker's
// messages in; once stopped() says the page withdrew the request, the work ends there and
// nothing is posted. Exported for the Node tests.
/**
 * @param {WorkClass} Work
 * @param {Ask} ask
 * @param {(message: Progress | Responded) => void} post
 * @param {{stopped?: () => boolean, now?: () => number, pause?: () => Promise<void>}} [options]
 */
export async function answer(
  Work,
  { id, request },
  post,
  { stopped = () => false, now = () => performance.now(), pause = nextTask } = {},
) {
  const begun = now();
  const work = Work(request);
  try {
    let told = -1;
    let resumed = begun;
    while (!work.step()) {
      const at = now();
      if (at - begun >= PROGRESS_AFTER_MS && work.done !== told) {
        told = work.done;
        post({ id, progress: [work.done, work.total] });
      }
      if (at - resumed >= SLICE_MS) {
        await pause();
        if (stopped()) return;
        resumed = now();
      }
    }
    post({ id, response: work.response });
  } finally {
    work.stop();
    work.destroy();
  }
}

// The worker's next task: the page's messages posted meanwhile come first. (A message on a
// channel of its own, not setTimeout, whose clamp for nested timers would add 4 ms a time.)
/** @returns {Promise<void>} */
function nextTask() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** @param {string} name */
function serve(name) {
  /** @param {FromWorker} message */
  const post = (message) => self.postMessage(message);
  /** @type {string[]} */
  const prepared = []; // the page's calculators ({prepare}), imported before "ready"
  const python = startPython(name, post, prepared);
  python.then(
    ({ snapshot }) => post({ ready: true, snapshot }),
    (error) => post({ failed: String(error), kind: kindOf(error) }),
  );
  const requests = workRequests(python, post, prepared);
  self.onmessage = (/** @type {MessageEvent<unknown>} */ { data }) => requests(data);
}

// The most calculators a page names ({prepare}), and the longest name: a page holds a few.
const MAX_PREPARED = 64;
const MAX_NAME = 64;

// A message from the page, checked before anything reads it: one of ToWorker, or null for
// anything else (ignored). Only this site's pages can message its worker; the check keeps a
// mistake, or a message of another shape, from reaching Python as something it is not. The
// request itself is rules_core.web's to bound and check, before it parses it.
/**
 * @param {unknown} data
 * @returns {ToWorker | null}
 */
export function toWorker(data) {
  if (typeof data !== "object" || data === null) return null;
  const message = /** @type {Record<string, unknown>} */ (data);
  if ("prepare" in message) {
    const names = message.prepare;
    const fit = Array.isArray(names) && names.length <= MAX_PREPARED;
    return fit && names.every((name) => typeof name === "string" && name.length <= MAX_NAME) ? { prepare: names } : null;
  }
  if ("withdraw" in message) return Number.isSafeInteger(message.withdraw) ? { withdraw: Number(message.withdraw) } : null;
  const { id, request } = message;
  return Number.isSafeInteger(id) && typeof request === "string" ? { id: Number(id), request } : null;
}

// The worker's requests, worked one at a time, in order, by the Python `python` resolves
// with: give each message the page sends to the function this returns. A withdrawn request
// is dropped from the queue, or stopped at its next step if it is the one being worked.
// rules_core.web's Work never raises: an error while working is Python's own (its stack
// overflowed, its memory ran out), after which it can answer nothing. That request is
// answered {id, died} and nothing more is worked here: the page starts a new worker
// (calculator-client.mjs). Exported for the Node tests.
/**
 * @param {Promise<{Work: WorkClass}>} python
 * @param {(message: FromWorker) => void} post
 * @param {string[]} prepared the page's calculators ({prepare}), for Python's start
 * @returns {(data: unknown) => void}
 */
export function workRequests(python, post, prepared) {
  /** @type {Ask[]} */
  const queue = [];
  /** @type {Ask | null} */
  let working = null;
  /** @type {Set<number>} */
  const withdrawn = new Set();
  let dead = false;

  async function workThrough() {
    while (queue.length && !dead) {
      working = /** @type {Ask} */ (queue.shift());
      const { id } = working;
      const stopped = () => withdrawn.has(id);
      /** @type {WorkClass} */
      let Work;
      try {
        ({ Work } = await python); // requests that come while Python loads wait for it
      } catch (error) {
        post({ id, failed: String(error) }); // no Python: said as the start's failure too
        withdrawn.delete(id);
        continue;
      }
      try {
        if (!stopped()) await answer(Work, working, post, { stopped });
      } catch (error) {
        dead = true;
        post({ id, died: String(error) });
      }
      withdrawn.delete(id);
    }
    working = null;
  }

  return (data) => {
    const message = toWorker(data);
    if (!message || dead) return;
    if ("prepare" in message) {
      prepared.push(...message.prepare);
      return;
    }
    if ("withdraw" in message) {
      if (working?.id === message.withdraw || queue.some(({ id }) => id === message.withdraw)) {
        withdrawn.add(message.withdraw);
      }
      return;
    }
    queue.push(message);
    if (!working) workThrough();
  };
}

// Python, started in this worker from the bundle its name names (python-start.mjs). This
// module imports nothing ahead of itself: a module the worker imported statically would be
// fetched before this one ran, a round trip (150 ms on a phone's network) before Python's
// first download. So the start's code, the modules it imports, and what it reads first (the
// bundle's list of files, Pyodide's own module) are asked for all at once.
/**
 * @param {string} name
 * @param {(message: Downloading) => void} post
 * @param {string[]} prepared
 */
function startPython(name, post, prepared) {
  const [bundle, afresh] = name.split(" ");
  if (!bundle || !/^[0-9a-f]+$/.test(bundle)) return Promise.reject(new Error("the page names no Python bundle"));
  const indexURL = new URL(`../pyodide/${bundle}/`, import.meta.url).href;
  // Never a bundle file from the HTTP cache after a damaged download: it may be that one.
  /** @type {RequestCache} */
  const cache = afresh ? "reload" : "default";
  const listing = fetch(`${indexURL}bundle.json`, { cache });
  /** @type {Promise<typeof import("pyodide")>} */
  const runtime = withSecondTry(() => import(`${indexURL}pyodide.mjs`));
  // Told by the start, which reads them, unless it failed before.
  for (const asked of [listing, runtime]) asked.catch(() => {});
  const code = withSecondTry(() =>
    Promise.all([import("./python-start.mjs"), import("./python-bundle.mjs"), import("./python-snapshot.mjs")]),
  );
  return code.then(([start]) => start.startPython({ indexURL, cache, listing, runtime }, post, prepared));
}

// What `load` imports, imported once more if that failed, before the start fails for it:
// as the page does for the widgets' code (calculator-unbound.mjs, whose tryAgain says the
// first failure in the console), imported only then. Chromium once aborted this worker's
// import of pyodide.mjs, served by the site's service worker, on a returning reader's page
// in a full run: a fetch the browser gave up on costs no "Try again".
/**
 * @template T
 * @param {() => Promise<T>} load
 * @returns {Promise<T>}
 */
function withSecondTry(load) {
  return load().catch((/** @type {unknown} */ reason) =>
    import("./calculator-unbound.mjs").then(({ tryAgain }) => tryAgain(load, reason)),
  );
}

/**
 * @param {unknown} error
 * @returns {FailureKind}
 */
function kindOf(error) {
  // A StartFailure (python-bundle.mjs) says why.
  if (error instanceof Error && "kind" in error) return /** @type {FailureKind} */ (error.kind);
  // A module script that did not arrive (the start's own, pyodide.mjs, pyodide.asm.js): a
  // TypeError whose wording is the browser's own ("Failed to fetch dynamically imported module").
  if (error instanceof TypeError && /fetch|import|load/i.test(error.message)) return "download";
  return "error";
}

// As a worker only: the Node tests import answer and nothing runs.
if ("WorkerGlobalScope" in globalThis) serve(self.name);
