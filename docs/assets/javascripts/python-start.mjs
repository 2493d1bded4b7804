// Python started in the calculators' worker, from the bundle its page names: the bundle's
// files downloaded, their progress told to the page, the snapshot fetched where the
// connection is fast, and any failed download made to end the start, with its cause.
// calculator-worker.mjs calls startPython() and says to the page how it went.

import { StartFailure, contentOf, moduleOf, startRulesCore, unpack } from "./python-bundle.mjs";
import { pace, snapshotInTime, withZeroRuns } from "./python-snapshot.mjs";

/**
 * @typedef {import("./calculator-worker.mjs").Downloading} Downloading
 * @typedef {import("./calculator-worker.mjs").WorkClass} WorkClass
 * @typedef {import("./python-bundle.mjs").Bundle} Bundle
 * @typedef {import("./python-bundle.mjs").BundleFile} BundleFile
 *
 * @typedef {object} BundleAt Where the bundle is served, and what the start reads first,
 *   asked for already (calculator-worker.mjs asks for them with this module, not after it).
 * @property {string} indexURL The bundle's folder (assets/pyodide/<name>/).
 * @property {RequestCache} cache How its files are fetched: "reload", past the HTTP cache,
 *   after a damaged download.
 * @property {Promise<Response>} listing Its list of files (bundle.json).
 * @property {Promise<typeof import("pyodide")>} runtime Pyodide's module (pyodide.mjs).
 */

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

/** @param {string} hex */
const base64 = (hex) =>
  btoa(String.fromCharCode(.../** @type {string[]} */ (hex.match(/../g)).map((pair) => parseInt(pair, 16))));

// Python with the rules core, started from the bundle `at` names; post(message) tells the
// page how much of it has downloaded. The calculators in `prepared` (the page's, which it
// names as the worker starts) are imported before it resolves, so the first answer is
// computed at once. Resolves with rules_core.web's Work and whether Python was restored
// from the snapshot; rejects with why it could not start (a StartFailure where a file did
// not arrive or arrived damaged), once what was still downloading is dropped.
/**
 * @param {BundleAt} at
 * @param {(message: Downloading) => void} post
 * @param {string[]} prepared
 * @returns {Promise<{Work: WorkClass, snapshot: boolean}>}
 */
export function startPython({ indexURL, cache, listing, runtime }, post, prepared) {
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
  const downloads = new Downloads(post);
  // Once the start has failed, what is still downloading is dropped, and said no more.
  const dropped = new AbortController();

  /**
   * @param {string} url
   * @param {string} [integrity]
   * @param {AbortSignal} [signal] what drops the download: the start's failure, by default
   */
  function fetchChecked(url, integrity = "", signal = dropped.signal) {
    return checked(url, fetchFromSite(url, { cache, integrity, signal }));
  }

  // What the browser checks a file against itself, where this worker cannot (no crypto.subtle).
  /** @param {BundleFile} entry */
  const integrityOf = (entry) =>
    checks ? "" : `sha256-${base64(entry.sha256)} sha256-${base64(entry.content_sha256)}`;

  // One file of the bundle, its progress told to `told` (see unpack: counted, decoded).
  /**
   * @param {BundleFile} entry
   * @param {{counted: (bytes: number) => void, decoded: (entry: BundleFile) => void}} [told]
   * @param {AbortSignal} [signal]
   */
  async function download(entry, { counted, decoded } = downloads, signal) {
    const response = await fetchChecked(indexURL + entry.file, integrityOf(entry), signal);
    return unpack(response, entry, { counted, decoded, checks });
  }

  const handle = (async () => {
    // What this build serves, with the size and SHA-256 of each file (pyodide_bundle.py).
    /** @type {Bundle} */
    const files = await (await checked(`${indexURL}bundle.json`, listing)).json();
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
    // The snapshot's bytes, read whole as they arrive (by the browser, not this thread): when
    // they have arrived is the network's doing alone, never slowed by inflating them on a
    // busy thread. Not counted in what the page says is downloading: Python, once per
    // device; the snapshot is not kept. Lost, it is not needed: Python starts as it would
    // without it (null).
    /** @type {Promise<Uint8Array<ArrayBuffer> | null>} */
    const snapshotArrived = snapshotEntry
      ? wasmPace.fast
          .then(async (fast) => {
            if (!fast) return null;
            const url = indexURL + snapshotEntry.file;
            const response = await fetchChecked(url, integrityOf(snapshotEntry), snapshotDropped.signal);
            return new Uint8Array(await response.arrayBuffer());
          })
          .catch(() => null)
      : Promise.resolve(null);
    // Then checked and inflated; damaged, it is not needed either.
    /** @type {Promise<Uint8Array | null>} */
    const snapshot = snapshotArrived
      .then(async (bytes) => {
        if (!bytes || !snapshotEntry) return null;
        return withZeroRuns(await contentOf(await unpack(new Response(bytes), snapshotEntry, { checks })));
      })
      .catch(() => null);
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
    // A snapshot whose bytes come well after Python's own files is not waited for: Python
    // starts without it, and its download is dropped (snapshotInTime).
    /** @type {Uint8Array | null} */
    let memory = await Promise.race([
      snapshotInTime(snapshotArrived.then(Boolean), snapshot, Promise.all([module, stdlibBytes])),
      failed,
    ]);
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

  return handle.catch((error) => {
    downloads.ended = true;
    dropped.abort();
    throw error;
  });
}

// A response of the site's, or the StartFailure of a download that did not arrive.
/**
 * @param {string} url
 * @param {Promise<Response>} responding
 */
async function checked(url, responding) {
  const response = await responding.catch((error) => {
    throw new StartFailure("download", `${url}: ${error}`);
  });
  if (!response.ok) throw new StartFailure("download", `${url}: ${response.status} ${response.statusText}`);
  return response;
}
