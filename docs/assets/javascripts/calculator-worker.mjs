// Runs the rules core in Pyodide, off the page's thread, and stays warm between requests.
// The page sends {id, request} (request: a JSON string, as rules_core.web.handle_json
// takes) and gets back {id, response}, after {id, progress: [done, total]} while a long one
// works (a fight: rounds done); {loading: {done, total, starting}} while Python downloads
// (bytes; `starting` once what Python starts from has arrived: it starts while the rules
// core's wheel comes); {ready: true} once Python and the core are loaded, or {failed,
// kind} if they could not be (kind: why, see StartFailure). {withdraw: id} says the page no
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
 * @typedef {"download" | "damaged" | "error"} FailureKind Why Python could not start (see
 *   StartFailure).
 * @typedef {{done: number, total: number, starting: boolean}} Loading How far Python's
 *   download has got, in bytes (total 0 until known); `starting` once Python starts.
 * @typedef {{loading: Loading}} Downloading
 * @typedef {{ready: true, snapshot: boolean}} Ready Python and the rules core are loaded;
 *   `snapshot`: restored from the bundle's snapshot (see SNAPSHOT_PACE), not started.
 * @typedef {{failed: string, kind: FailureKind}} NotStarted Python could not start: no id.
 * @typedef {{id: number, progress: [done: number, total: number]}} Progress How far a long
 *   request has got (a fight: rounds done, rounds in all).
 * @typedef {{id: number, response: string}} Responded The answer: a rules_core.web Answer as JSON.
 * @typedef {{id: number, failed: string}} Failed The request could not be worked.
 * @typedef {Downloading | Ready | NotStarted | Progress | Responded | Failed} FromWorker What the
 *   worker sends.
 */

// Python with the rules core importable, from the bundle at indexURL; read(name, sha256)
// gives a bundle file's bytes (sha256, where given, is the digest the lock file lists), and
// `options` go to loadPyodide as they are. Exported for the Node tests and the build's
// trace of what Python imports (hooks/package/trace_imports.mjs), which start Python the
// same way.
//
// The wheel goes on sys.path as it is, a zip archive Python imports from. Installing it
// with loadPackage() would first import Python's packaging modules (tarfile, email,
// importlib.metadata) to unpack it: about 0.1 s more before the first answer, in
// bench_calculators.py's worker alone.
/**
 * @param {typeof import("pyodide").loadPyodide} loadPyodide
 * @param {string} indexURL
 * @param {(name: string, sha256?: string) => Promise<Uint8Array>} read
 * @param {import("pyodide").PyodideConfig} [options]
 */
export async function startRulesCore(loadPyodide, indexURL, read, options = {}) {
  const lockFile = read("pyodide-lock.json").then(
    (bytes) => /** @type {import("pyodide").Lockfile} */ (JSON.parse(new TextDecoder().decode(bytes))),
  );
  // Downloaded while Python starts up.
  const wheel = lockFile.then(async (lock) => {
    const entry = wheelOf(lock);
    return { path: `/lib/${entry.file_name}`, bytes: await read(entry.file_name, entry.sha256) };
  });
  wheel.catch(() => {}); // a failed download is told by the await below, not as unhandled
  // Any package Pyodide itself would fetch comes from the bundle too, never from its CDN.
  const pyodide = await loadPyodide({
    indexURL,
    lockFileContents: lockFile,
    packageBaseUrl: indexURL,
    ...options,
  });
  const { path, bytes } = await wheel;
  pyodide.FS.writeFile(path, bytes);
  if (options._loadSnapshot) {
    // Restored (see SNAPSHOT_PACE): the wheel is on Python's path already, and Python's
    // random numbers are the snapshot's, the same for every reader until reseeded here.
    pyodide.pyimport("random").seed();
  } else {
    pyodide.pyimport("sys").path.append(path);
  }
  return pyodide;
}

// The lock file's entry for the rules core's wheel.
/** @param {import("pyodide").Lockfile} lock */
export function wheelOf({ packages }) {
  const entry = Object.values(packages).find((found) => found.imports.includes("rules_core"));
  if (!entry) throw new Error("the bundle's lock file lists no rules_core wheel");
  return entry;
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

// Why Python could not start, for the page to say in words: "download" (a file of the
// bundle did not arrive: offline, or the connection failed), "damaged" (a file arrived,
// but not as this build wrote it: cut short or altered on the way, or another build's) or
// "error" (Python itself failed).
export class StartFailure extends Error {
  /**
   * @param {FailureKind} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const GZIP = [0x1f, 0x8b];

/**
 * One file of the bundle, as bundle.json lists it (hooks/package/pyodide_bundle.py).
 * @typedef {object} BundleFile
 * @property {string} file What the site serves: the file gzipped.
 * @property {string} name Its name once decompressed, as Pyodide asks for it.
 * @property {number} bytes The size of the file as served (gzipped).
 * @property {number} size The size of its content.
 * @property {string} sha256 The SHA-256 of the file as served.
 * @property {string} content_sha256 The SHA-256 of its content.
 *
 * @typedef {object} Bundle What bundle.json holds: the lock file and the files.
 * @property {import("pyodide").Lockfile} lock
 * @property {BundleFile} wasm
 * @property {BundleFile} stdlib
 * @property {BundleFile} wheel
 * @property {BundleFile} [snapshot] Python's memory with the rules core loaded (absent from a
 *   bundle whose wheel the dev server rebuilt)
 *
 * @typedef {object} Unpacked A file of the bundle as it arrives (unpack()).
 * @property {ReadableStream<Uint8Array<ArrayBuffer>>} content
 * @property {Promise<unknown>} arrived
 * @property {Promise<void>} checked
 * @property {(error: unknown) => Promise<unknown>} why
 */

// One file of the bundle as the server sent it: stored gzipped (pyodide_bundle.py), which
// every static host serves as it is. Gives its content, decompressed as it arrives
// (DecompressionStream); `arrived`, which resolves once the last byte has; and `checked`,
// which resolves once every byte has matched this build's SHA-256 (bundle.json: `sha256`
// of the file as stored, or `content_sha256` where a host sent it decoded, with a
// Content-Encoding). counted(n) hears each chunk's size as it arrives, and decoded(entry)
// that a host sent the file decoded (its size is then `size`, not `bytes`). Where the
// browser checks the file itself (`integrity` on the fetch, without crypto.subtle), pass
// checks: false. Exported for the Node tests.
//
// A failure is a StartFailure: "download" when the connection failed, "damaged" when what
// arrived is not the file (its digest differs, or it does not decompress): a truncated or
// corrupted file is never given to Python. why(error) names the failure of a reader of
// `content`.
/**
 * @param {Response} response
 * @param {BundleFile} entry
 * @param {{counted?: (bytes: number) => void, decoded?: (entry: BundleFile) => void, checks?: boolean}} [options]
 * @returns {Promise<Unpacked>}
 */
export async function unpack(response, entry, { counted = () => {}, decoded = () => {}, checks = true } = {}) {
  /** @type {Uint8Array<ArrayBuffer>[]} */
  const chunks = [];
  /** @type {StartFailure | null} */
  let lost = null; // the connection's own failure, which is not the file's
  const reader = /** @type {ReadableStream<Uint8Array<ArrayBuffer>>} */ (response.body).getReader();
  const read = () =>
    reader.read().catch((error) => {
      lost = new StartFailure("download", `${entry.file}: ${error}`);
      throw lost;
    });
  // The first two bytes say whether the body is the stored file (gzip) or its content.
  /** @type {Uint8Array<ArrayBuffer>[]} */
  const head = [];
  let ended = false;
  while (!ended && head.reduce((sum, chunk) => sum + chunk.byteLength, 0) < GZIP.length) {
    const { done, value } = await read();
    if (done) ended = true;
    else head.push(value);
  }
  const start = joined(head);
  const gzipped = GZIP.every((byte, index) => start[index] === byte);
  if (!gzipped) decoded(entry);
  let whole = false; // every byte has arrived
  /** @type {(value?: unknown) => void} */
  let arrive = () => {};
  const arrived = new Promise((resolve) => (arrive = resolve)).then(() => (whole = true));
  /**
   * @param {ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>} controller
   * @param {Uint8Array<ArrayBuffer>} chunk
   */
  const take = (controller, chunk) => {
    chunks.push(chunk);
    counted(chunk.byteLength);
    controller.enqueue(chunk);
  };
  /** @type {ReadableStream<Uint8Array<ArrayBuffer>>} */
  const raw = new ReadableStream({
    start(controller) {
      if (start.byteLength) take(controller, start);
      if (ended) {
        controller.close();
        arrive();
      }
    },
    async pull(controller) {
      const { done, value } = await read();
      if (!done) return take(controller, value);
      controller.close();
      arrive();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const content = gzipped ? raw.pipeThrough(new DecompressionStream("gzip")) : raw;
  const checked = arrived.then(async () => {
    if (!checks) return;
    const expected = gzipped ? entry.sha256 : entry.content_sha256;
    const digest = hex(await crypto.subtle.digest("SHA-256", joined(chunks)));
    if (digest !== expected) {
      throw new StartFailure("damaged", `${entry.file} is not the file this build wrote (${digest})`);
    }
  });
  checked.catch(() => {}); // told by whoever awaits it
  // A reader of the content failed: the connection; else the file, when it does not
  // decompress (it stops short, or is altered); else, the file being this build's, the
  // browser itself.
  /** @param {unknown} error */
  const why = async (error) => {
    if (error instanceof StartFailure) return error;
    if (lost) return lost;
    if (!whole) return new StartFailure("damaged", `${entry.file}: ${error}`);
    return checked.then(() => error, (damaged) => damaged);
  };
  return { content, arrived, checked, why };
}

/** @param {Uint8Array<ArrayBuffer>[]} chunks */
function joined(chunks) {
  const size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** @param {ArrayBuffer} buffer */
const hex = (buffer) => [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

// The whole content of an unpacked file, once checked.
/** @param {Unpacked} unpacked */
export async function contentOf({ content, checked, why }) {
  try {
    const bytes = new Uint8Array(await new Response(content).arrayBuffer());
    await checked;
    return bytes;
  } catch (error) {
    throw await why(error);
  }
}

// The WebAssembly module of an unpacked file, compiled as it arrives, once checked: a
// damaged file says so, rather than as a compile error.
/** @param {Unpacked} unpacked */
export async function moduleOf({ content, checked, why }) {
  const source = new Response(content, { headers: { "Content-Type": "application/wasm" } });
  try {
    const module = await WebAssembly.compileStreaming(source);
    await checked;
    return module;
  } catch (error) {
    throw await why(error);
  }
}

/**
 * @param {unknown} error
 * @returns {FailureKind}
 */
function kindOf(error) {
  if (error instanceof StartFailure) return error.kind;
  // A module script that did not arrive (pyodide.mjs, pyodide.asm.js): a TypeError whose
  // wording is the browser's own ("Failed to fetch dynamically imported module").
  if (error instanceof TypeError && /fetch|import|load/i.test(error.message)) return "download";
  return "error";
}

// Pyodide fetches its runtime itself, and a failed download does not always end its start:
// a wasm that did not arrive is logged ("wasm instantiation failed!") and the start waits
// for ever. Every fetch of this worker and the wasm's instantiation pass through here, so
// the first failure ends the start, with its cause. `served` answers the addresses the
// worker downloads itself (the WebAssembly, the standard library): Pyodide asks for them
// by their own names, which the site does not serve.
/** @param {Map<string, () => Promise<Response>>} served */
function watchDownloads(served) {
  /** @type {(error: unknown) => void} */
  let fail = () => {};
  /** @type {Promise<never>} */
  const failed = new Promise((_, reject) => (fail = reject));
  failed.catch(() => {}); // told by the start it ends
  const fetchFromSite = self.fetch.bind(self);
  self.fetch = async (resource, init) => {
    const url = String(resource instanceof Request ? resource.url : resource);
    const answer = served.get(url);
    if (answer) return answer();
    try {
      const response = await fetchFromSite(resource, init);
      if (!response.ok) fail(new StartFailure("download", `${url}: ${response.status} ${response.statusText}`));
      return response;
    } catch (error) {
      fail(new StartFailure("download", `${url}: ${error}`));
      throw error;
    }
  };
  return { failed, fail, fetchFromSite };
}

// What a first visit downloads, said to the page as it arrives: the bytes of the files the
// worker fetches itself (all of Python but its two scripts, about 0.25 MB as a host
// compresses them), at most every PROGRESS_EVERY_MS and once all have arrived.
const PROGRESS_EVERY_MS = 100;

class Downloads {
  /** @param {(message: Downloading) => void} post */
  constructor(post) {
    this.post = post;
    this.done = 0;
    this.total = 0;
    this.told = -Infinity;
    this.ended = false; // the start failed: nothing more is said
    this.starting = false; // Python starts: the wheel may still be on its way
  }

  start() {
    this.starting = true;
    this.told = -Infinity;
    this.counted(0);
  }

  /** @param {number} bytes */
  expect(bytes) {
    this.total += bytes;
  }

  // A host that sent a file decoded sends its content's size.
  decoded = (/** @type {BundleFile} */ entry) => this.expect(entry.size - entry.bytes);

  counted = (/** @type {number} */ bytes) => {
    if (this.ended) return;
    this.done += bytes;
    const now = performance.now();
    if (now - this.told >= PROGRESS_EVERY_MS || this.done >= this.total) {
      this.told = now;
      const done = Math.min(this.done, this.total);
      this.post({ loading: { done, total: this.total, starting: this.starting } });
    }
  };
}

// Python's snapshot (bundle.json `snapshot`, made by hooks/package/make_snapshot.mjs) is
// Python's memory once the rules core has answered every calculator for every system:
// restored, Python answers without starting itself or importing the core, which saves
// about half a second on a desktop and some 2 s on a phone four times slower
// (bench_calculators.py). But it is some 5.6 MB on top of the 4.1 MB Python needs, so it
// is fetched only where it arrives in about what it saves: where the WebAssembly's first
// SNAPSHOT_PACE.bytes arrive within SNAPSHOT_PACE.ms of its first byte (8 MB/s and more:
// a wired or fast wireless connection, or the browser's cache; counted as this thread
// reads them: from a local server, in bursts of up to 2 MB, up to 0.1 s apart). A phone's
// mobile network never downloads it. Where it does not arrive, comes late (the WebAssembly
// came from a cache, the snapshot comes over a slow network), is damaged or is not
// restored, Python starts without it. The service worker does not keep it (offline.py):
// offline, Python starts from the files it keeps.
export const SNAPSHOT_PACE = { bytes: 2_000_000, ms: 250 };
// How long after the WebAssembly and the standard library the snapshot is waited for: it
// comes some 0.3 s after them here, and starting Python without it takes about 0.5 s more
// on a desktop, 2 s on a phone.
export const SNAPSHOT_WAIT_MS = 1000;

// Whether a download is fast (see SNAPSHOT_PACE): `counted(n)` hears each chunk's size as
// it arrives; `fast` resolves as soon as it is known: true once `bytes` have arrived
// within `ms` of the first, false once `ms` have passed without. Exported for the Node tests.
export function pace({ bytes, ms } = SNAPSHOT_PACE, now = () => performance.now()) {
  /** @type {(fast: boolean) => void} */
  let settle = () => {};
  /** @type {Promise<boolean>} */
  const fast = new Promise((resolve) => (settle = resolve));
  /** @type {number | null} */
  let first = null;
  let arrived = 0;
  /** @param {number} chunk */
  const counted = (chunk) => {
    if (first === null) {
      first = now();
      setTimeout(() => settle(false), ms);
    }
    arrived += chunk;
    if (arrived >= bytes) settle(now() - first <= ms);
  };
  return { fast, counted };
}

// The snapshot's file is Python's memory without its runs of zeros (DecompressionStream
// inflates some 70 MB a second here, and 11 of the memory's 25 MB are zeros in runs): a
// little-endian u32, the memory's size, then records to the end, each a u32 count of
// zeros, a u32 length and that many bytes of the memory. withoutZeroRuns writes it
// (hooks/package/make_snapshot.mjs), withZeroRuns gives the memory back.
const SHORTEST_RUN = 64; // shorter runs of zeros cost more as a record than as bytes

/** @param {number[]} values */
const u32s = (values) => {
  const view = new DataView(new ArrayBuffer(4 * values.length));
  values.forEach((value, index) => view.setUint32(4 * index, value, true));
  return new Uint8Array(view.buffer);
};

/** @param {Uint8Array<ArrayBuffer>} memory */
export function withoutZeroRuns(memory) {
  const parts = [u32s([memory.length])];
  let zeros = 0; // the run of zeros before the bytes from `kept` on
  let kept = 0;
  let at = 0;
  while (at < memory.length) {
    if (memory[at] !== 0) {
      at++;
      continue;
    }
    let end = at;
    while (end < memory.length && memory[end] === 0) end++;
    if (end - at >= SHORTEST_RUN) {
      parts.push(u32s([zeros, at - kept]), memory.subarray(kept, at));
      zeros = end - at;
      kept = end;
    }
    at = end;
  }
  parts.push(u32s([zeros, memory.length - kept]), memory.subarray(kept));
  return joined(parts);
}

// The memory withoutZeroRuns left out the zeros of; an Error where `packed` is not whole.
/** @param {Uint8Array} packed */
export function withZeroRuns(packed) {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const memory = new Uint8Array(view.getUint32(0, true));
  let from = 4;
  let to = 0;
  while (from < packed.length) {
    to += view.getUint32(from, true);
    const length = view.getUint32(from + 4, true);
    from += 8;
    memory.set(packed.subarray(from, from + length), to);
    from += length;
    to += length;
  }
  if (from !== packed.length || to !== memory.length) throw new Error("the snapshot is not whole");
  return memory;
}

/** @param {string} hex */
const base64 = (hex) =>
  btoa(String.fromCharCode(.../** @type {string[]} */ (hex.match(/../g)).map((pair) => parseInt(pair, 16))));

/** @param {string} name */
function serve(name) {
  const [bundle, afresh] = name.split(" ");
  const indexURL = new URL(`../pyodide/${bundle}/`, import.meta.url).href;
  // Never a bundle file from the HTTP cache after a damaged download: it may be that one.
  const cache = afresh ? "reload" : "default";
  // Without crypto.subtle (an insecure address) the browser checks each file's digest
  // itself (Subresource Integrity: its failure reads as a failed download).
  const checks = Boolean(self.crypto?.subtle);
  // Pyodide asks for its WebAssembly and standard library by these names, which the site
  // does not serve: the worker answers them from what it downloaded.
  const wasmURL = `${indexURL}pyodide.asm.wasm`;
  const stdLibURL = `${indexURL}python_stdlib.zip`;
  /** @type {Map<string, () => Promise<Response>>} */
  const served = new Map();
  const { failed, fail, fetchFromSite } = watchDownloads(served);
  /** @param {FromWorker} message */
  const post = (message) => self.postMessage(message);
  const downloads = new Downloads(post);
  /** @type {string[]} */
  const prepared = []; // the page's calculators ({prepare}), imported before "ready"
  // Once the start has failed, what is still downloading is dropped, and said no more.
  const dropped = new AbortController();

  /**
   * @param {string} url
   * @param {string} [integrity]
   * @param {AbortSignal} [signal] what drops the download: the start's failure, by default
   */
  async function fetchChecked(url, integrity = "", signal = dropped.signal) {
    const response = await fetchFromSite(url, { cache, integrity, signal }).catch((error) => {
      throw new StartFailure("download", `${url}: ${error}`);
    });
    if (!response.ok) throw new StartFailure("download", `${url}: ${response.status} ${response.statusText}`);
    return response;
  }

  // One file of the bundle, its progress told to `told` (see unpack: counted, decoded).
  /**
   * @param {BundleFile} entry
   * @param {{counted: (bytes: number) => void, decoded: (entry: BundleFile) => void}} [told]
   * @param {AbortSignal} [signal]
   */
  async function download(entry, { counted, decoded } = downloads, signal) {
    const integrity = checks ? "" : `sha256-${base64(entry.sha256)} sha256-${base64(entry.content_sha256)}`;
    const response = await fetchChecked(indexURL + entry.file, integrity, signal);
    return unpack(response, entry, { counted, decoded, checks });
  }

  const handle = (async () => {
    if (!bundle || !/^[0-9a-f]+$/.test(bundle)) throw new Error("the page names no Python bundle");
    /** @type {Promise<typeof import("pyodide")>} */
    const runtime = import(`${indexURL}pyodide.mjs`);
    runtime.catch(() => {}); // told where it is awaited, unless the start failed before
    // What this build serves, with the size and SHA-256 of each file (pyodide_bundle.py).
    /** @type {Bundle} */
    const files = await (await fetchChecked(`${indexURL}bundle.json`)).json();
    for (const entry of [files.wasm, files.stdlib, files.wheel]) downloads.expect(entry.bytes);
    // The WebAssembly compiles as it downloads, before Pyodide's own script has arrived,
    // and is instantiated only once every byte matched. How fast it comes decides the snapshot.
    const wasmPace = pace();
    const wasm = download(files.wasm, {
      counted: (bytes) => {
        downloads.counted(bytes);
        wasmPace.counted(bytes);
      },
      decoded: downloads.decoded,
    });
    // Pyodide's other script, which loadPyodide() imports as it begins: here, it comes
    // while the snapshot is decided on and downloads, once the WebAssembly's pace is
    // known (parsing it meanwhile would hold up the chunks being counted). A failure is
    // told by Pyodide's own import.
    wasmPace.fast.then(() => import(`${indexURL}pyodide.asm.js`)).catch(() => {});
    const stdlib = download(files.stdlib);
    const module = wasm.then(moduleOf);
    const stdlibBytes = stdlib.then(contentOf);
    // The rules core comes last: Python starts without it, and it arrives meanwhile.
    const arrived = Promise.all([wasm, stdlib]).then((both) =>
      Promise.all(both.map((unpacked) => unpacked.arrived)),
    );
    const wheel = arrived.then(() => download(files.wheel)).then(contentOf);
    const snapshotEntry = files.snapshot;
    const snapshotDropped = new AbortController();
    dropped.signal.addEventListener("abort", () => snapshotDropped.abort());
    /** @type {Promise<Uint8Array | null>} */
    const snapshot = snapshotEntry
      ? wasmPace.fast.then((fast) => {
          if (!fast) return null;
          // Not counted in what the page says is downloading: Python, once per device. The
          // snapshot is not kept, and downloads in a fraction of a second (or not at all).
          const untold = { counted: () => {}, decoded: () => {} };
          // Lost or damaged, it is not needed: Python starts as it would without it.
          return download(snapshotEntry, untold, snapshotDropped.signal)
            .then(contentOf)
            .then(withZeroRuns)
            .catch(() => null);
        })
      : Promise.resolve(null);
    // Said before Python's start takes this thread, which reads no download meanwhile.
    Promise.all([module, stdlibBytes, snapshot]).then(() => downloads.start(), () => {});
    for (const part of [module, stdlibBytes, wheel]) part.catch(fail);
    // A part that failed has ended the start already (fail): Pyodide, which would log its
    // own error for it, waits instead, until the page ends this worker.
    /** @returns {Promise<never>} */
    const never = () => new Promise(() => {});
    served.set(stdLibURL, async () => new Response(await stdlibBytes.catch(never)));
    const standIn = new Response(null);
    served.set(wasmURL, async () => standIn);
    // Pyodide logs a failed instantiation and waits for ever: here it ends the start that
    // asked for it (`unfit`), as a restore from a snapshot that does not fit does.
    /** @type {(error: unknown) => void} */
    let unfit = () => {};
    const instantiate = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = async (source, imports) => {
      if ((await source) !== standIn) return instantiate(source, imports);
      const compiled = await module.catch(never);
      try {
        return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
      } catch (error) {
        unfit(error);
        throw error;
      }
    };
    /** @param {string} name */
    const read = async (name) => {
      if (name === "pyodide-lock.json") return new TextEncoder().encode(JSON.stringify(files.lock));
      if (name === files.wheel.name) return wheel;
      throw new Error(`${name} is not in the bundle`);
    };
    const { loadPyodide } = await runtime;
    /** @param {import("pyodide").PyodideConfig} options */
    const start = (options) => {
      /** @type {Promise<never>} */
      const notInstantiated = new Promise((_, reject) => (unfit = reject));
      const started = startRulesCore(loadPyodide, indexURL, read, { stdLibURL, ...options });
      return Promise.race([started, failed, notInstantiated]);
    };
    // A snapshot that comes well after Python's own files (they came from a cache, it comes
    // over a slow network) is not waited for: Python starts without it, and it is dropped.
    /** @type {Promise<null>} */
    const late = Promise.all([module, stdlibBytes]).then(
      () => new Promise((resolve) => setTimeout(() => resolve(null), SNAPSHOT_WAIT_MS)),
    );
    /** @type {Uint8Array | null} */
    let memory = await Promise.race([snapshot, late, failed]);
    if (!memory) snapshotDropped.abort();
    // Handed over once, as a thenable: Pyodide keeps its options for as long as it runs,
    // and would keep the snapshot's 25 MB with them.
    /** @type {PromiseLike<Uint8Array>} */
    const handedOver = {
      then(resolve) {
        const bytes = /** @type {Uint8Array} */ (memory);
        memory = null;
        return Promise.resolve(bytes).then(resolve);
      },
    };
    // A snapshot this Pyodide will not restore is not needed either (a download that
    // failed meanwhile is not the snapshot's: it ends the start).
    const restored =
      memory &&
      (await start({ _loadSnapshot: handedOver }).catch((error) => {
        if (error instanceof StartFailure) throw error;
        return null;
      }));
    const pyodide = restored || (await start({}));
    /** @type {WorkClass} */
    const Work = pyodide.pyimport("rules_core.web").Work;
    const registry = pyodide.pyimport("rules_core.calculators").CALCULATORS;
    for (const name of prepared) registry.get(name)?.destroy(); // an unknown name: none
    registry.destroy();
    // What is loaded now lives as long as the page: keep the garbage collector from
    // walking it on every collection, which would stall calculations at random.
    pyodide.runPython("import gc; gc.freeze()");
    return { Work, snapshot: Boolean(restored) };
  })();

  handle.then(
    ({ snapshot }) => post({ ready: true, snapshot }),
    (error) => {
      downloads.ended = true;
      dropped.abort();
      post({ failed: String(error), kind: kindOf(error) });
    },
  );

  // Requests are worked one at a time, in order; a withdrawn one is dropped from the queue,
  // or stopped at its next step if it is the one being worked.
  /** @type {Ask[]} */
  const queue = [];
  /** @type {Ask | null} */
  let working = null;
  /** @type {Set<number>} */
  const withdrawn = new Set();
  self.onmessage = (/** @type {MessageEvent<ToWorker>} */ { data }) => {
    if ("prepare" in data) {
      prepared.push(...data.prepare.map(String));
      return;
    }
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
      working = /** @type {Ask} */ (queue.shift());
      const { id } = working;
      const stopped = () => withdrawn.has(id);
      try {
        const { Work } = await handle; // requests that come while Python loads wait for it
        if (!stopped()) await answer(Work, working, post, { stopped });
      } catch (error) {
        post({ id, failed: String(error) });
      }
      withdrawn.delete(id);
    }
    working = null;
  }
}

// As a worker only: the Node tests import startRulesCore and nothing runs.
if ("WorkerGlobalScope" in globalThis) serve(self.name);
