// Runs the rules core in Pyodide, off the page's thread, and stays warm between requests.
// The page sends {id, request} (request: a JSON string for rules_core.web.handle_json)
// and gets back {id, response}; {ready: true} once Python and the core are loaded.
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

async function readFromSite(url, sha256) {
  // With the lock file's digest, the browser refuses a wheel that is not this build's.
  const integrity = sha256 ? `sha256-${btoa(String.fromCharCode(...hexBytes(sha256)))}` : "";
  const response = await fetch(url, { integrity });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

const hexBytes = (hex) => hex.match(/../g).map((pair) => parseInt(pair, 16));

function serve(bundle) {
  const indexURL = new URL(`../pyodide/${bundle}/`, import.meta.url).href;
  const handle = (async () => {
    if (!bundle || !/^[0-9a-f]+$/.test(bundle)) throw new Error("the page names no Python bundle");
    const { loadPyodide } = await import(`${indexURL}pyodide.mjs`);
    const pyodide = await startRulesCore(loadPyodide, indexURL, (name, sha256) =>
      readFromSite(indexURL + name, sha256),
    );
    const handleJson = pyodide.pyimport("rules_core.web").handle_json;
    // What is loaded now lives as long as the page: keep the garbage collector from
    // walking it on every collection, which would stall calculations at random.
    pyodide.runPython("import gc; gc.freeze()");
    return handleJson;
  })();

  handle.then(
    () => self.postMessage({ ready: true }),
    (error) => self.postMessage({ failed: String(error) }),
  );

  self.onmessage = async (event) => {
    const { id, request } = event.data;
    try {
      const handleJson = await handle;
      self.postMessage({ id, response: handleJson(request) });
    } catch (error) {
      self.postMessage({ id, failed: String(error) });
    }
  };
}

// As a worker only: the Node tests import startRulesCore and nothing runs.
if (typeof WorkerGlobalScope !== "undefined") serve(self.name);
