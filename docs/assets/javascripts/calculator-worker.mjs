// Runs the rules core in Pyodide, off the page's thread, and stays warm between requests.
// The page sends {id, request} (request: a JSON string, as rules_core.web.handle_json
// takes) and gets back {id, response}, after {id, progress: [done, total]} while a long one
// works (a fight: rounds done); {ready: true} once Python and the core are loaded, or
// {failed, kind} if they could not be (kind: why, see StartFailure). {withdraw: id} says
// the page no longer wants that answer (the reader changed the question): its work stops
// at its next step, or never starts, and nothing is sent back for it.
//
// The page names its build's bundle as the worker's name: the runtime, lock file and wheel
// are served under assets/pyodide/<name>/, so a page never runs another build's rules core.
// (Not a query string: a response from the service worker's cache would drop it.)

// Python with the rules core importable, from the bundle at indexURL; read(name, sha256)
// gives a bundle file's bytes (sha256, where given, is the digest the lock file lists).
// Exported for the Node tests, which start Python the same way.
//
// The wheel goes on sys.path as it is, a zip archive Python imports from. Installing it
// with loadPackage() would first import Python's packaging modules (tarfile, email,
// importlib.metadata) to unpack it: about 0.1 s more before the first answer, in
// bench_calculators.py's worker alone.
export async function startRulesCore(loadPyodide, indexURL, read) {
  const lockFile = read("pyodide-lock.json").then((bytes) =>
    JSON.parse(new TextDecoder().decode(bytes)),
  );
  // Downloaded while Python starts up.
  const wheel = lockFile.then(async ({ packages }) => {
    const entry = Object.values(packages).find((found) => found.imports.includes("rules_core"));
    if (!entry) throw new Error("the bundle's lock file lists no rules_core wheel");
    return { path: `/lib/${entry.file_name}`, bytes: await read(entry.file_name, entry.sha256) };
  });
  // Any package Pyodide itself would fetch comes from the bundle too, never from its CDN.
  const pyodide = await loadPyodide({ indexURL, lockFileContents: lockFile, packageBaseUrl: indexURL });
  const { path, bytes } = await wheel;
  pyodide.FS.writeFile(path, bytes);
  pyodide.pyimport("sys").path.append(path);
  return pyodide;
}

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

async function readFromSite(url, sha256) {
  // The lock file's digest is checked here rather than by Subresource Integrity, whose
  // failure is the same "Failed to fetch" as a lost connection: a wheel that is not this
  // build's says so. (Without crypto.subtle, on an insecure address, the browser checks it.)
  const check = sha256 && self.crypto?.subtle;
  const integrity = sha256 && !check ? `sha256-${btoa(String.fromCharCode(...hexBytes(sha256)))}` : "";
  const response = await fetch(url, { integrity });
  if (!response.ok) throw new StartFailure("download", `${url}: ${response.status} ${response.statusText}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (check && hex(await crypto.subtle.digest("SHA-256", bytes)) !== sha256) {
    throw new StartFailure("mismatch", `${url} is not the file this build's lock file lists`);
  }
  return bytes;
}

const hexBytes = (hex) => hex.match(/../g).map((pair) => parseInt(pair, 16));
const hex = (buffer) => [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

// Why Python could not start, for the page to say in words: "download" (a file of the
// bundle did not arrive: offline, or the connection failed), "mismatch" (a file is not
// this build's) or "error" (Python itself failed).
class StartFailure extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

function kindOf(error) {
  if (error instanceof StartFailure) return error.kind;
  // A module script that did not arrive (pyodide.mjs, pyodide.asm.js): a TypeError whose
  // wording is the browser's own ("Failed to fetch dynamically imported module").
  if (error instanceof TypeError && /fetch|import|load/i.test(error.message)) return "download";
  return "error";
}

// Pyodide fetches its runtime and standard library itself, and a failed download does not
// always end its start: a wasm that did not arrive is logged ("wasm instantiation
// failed!") and the start waits for ever. Every fetch of this worker and the wasm's
// compilation pass through here, so the first failure ends the start, with its cause.
function watchDownloads() {
  let fail;
  const failed = new Promise((resolve, reject) => (fail = reject));
  const fetchFromSite = self.fetch.bind(self);
  self.fetch = async (resource, init) => {
    const url = String(resource instanceof Request ? resource.url : resource);
    try {
      const response = await fetchFromSite(resource, init);
      if (!response.ok) fail(new StartFailure("download", `${url}: ${response.status} ${response.statusText}`));
      return response;
    } catch (error) {
      fail(new StartFailure("download", `${url}: ${error}`));
      throw error;
    }
  };
  const compile = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = (source, imports) =>
    compile(source, imports).catch((error) => {
      fail(error instanceof TypeError ? new StartFailure("download", String(error)) : error);
      throw error;
    });
  return failed;
}

function serve(bundle) {
  const indexURL = new URL(`../pyodide/${bundle}/`, import.meta.url).href;
  const failedDownload = watchDownloads();
  const handle = (async () => {
    if (!bundle || !/^[0-9a-f]+$/.test(bundle)) throw new Error("the page names no Python bundle");
    const { loadPyodide } = await import(`${indexURL}pyodide.mjs`);
    const pyodide = await Promise.race([
      startRulesCore(loadPyodide, indexURL, (name, sha256) => readFromSite(indexURL + name, sha256)),
      failedDownload,
    ]);
    const Work = pyodide.pyimport("rules_core.web").Work;
    // What is loaded now lives as long as the page: keep the garbage collector from
    // walking it on every collection, which would stall calculations at random.
    pyodide.runPython("import gc; gc.freeze()");
    return Work;
  })();

  handle.then(
    () => self.postMessage({ ready: true }),
    (error) => self.postMessage({ failed: String(error), kind: kindOf(error) }),
  );

  // Requests are worked one at a time, in order; a withdrawn one is dropped from the queue,
  // or stopped at its next step if it is the one being worked.
  const queue = [];
  let working = null;
  const withdrawn = new Set();
  self.onmessage = ({ data }) => {
    if ("withdraw" in data) {
      if (working?.id === data.withdraw || queue.some(({ id }) => id === data.withdraw)) {
        withdrawn.add(data.withdraw);
      }
      return;
    }
    queue.push(data);
    if (!working) workThrough();
  };

  async function workThrough() {
    while (queue.length) {
      working = queue.shift();
      const { id } = working;
      const stopped = () => withdrawn.has(id);
      try {
        const Work = await handle; // requests that come while Python loads wait for it
        if (!stopped()) await answer(Work, working, (message) => self.postMessage(message), { stopped });
      } catch (error) {
        self.postMessage({ id, failed: String(error) });
      }
      withdrawn.delete(id);
    }
    working = null;
  }
}

// As a worker only: the Node tests import startRulesCore and nothing runs.
if (typeof WorkerGlobalScope !== "undefined") serve(self.name);
