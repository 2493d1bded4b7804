// The files of the calculators' Python bundle (hooks/package/pyodide_bundle.py), and Python
// started from them: each file unpacked as it arrives and checked against this build's
// digests (unpack, contentOf, moduleOf; a failure is a StartFailure), and Python with the
// rules core importable (startRulesCore). The worker starts Python this way
// (python-start.mjs), and so do the Node tests and the bundle's own steps
// (hooks/package/node_python.mjs: the trace of what Python imports, the snapshot).

/** @typedef {import("./calculator-worker.mjs").FailureKind} FailureKind */

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

// Why Python could not start, as the page is told it (FailureKind, calculator-worker.mjs):
// a file of the bundle that did not arrive, or arrived damaged.
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
export function joined(chunks) {
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
