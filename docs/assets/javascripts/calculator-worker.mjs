// Runs the rules core in Pyodide, off the page's thread, and stays warm between requests.
// The page sends {id, request} (request: a JSON string for rules_core.web.handle_json)
// and gets back {id, response}; {ready: true} once Python and the core are loaded.
//
// The page names its build's bundle as the worker's name: the runtime, lock file and wheel
// are served under assets/pyodide/<name>/, so a page never runs another build's rules core.
// (Not a query string: a response from the service worker's cache would drop it.)
const bundle = self.name;
const indexURL = new URL(`../pyodide/${bundle}/`, import.meta.url).href;

const handle = (async () => {
  if (!bundle || !/^[0-9a-f]+$/.test(bundle)) throw new Error("the page names no Python bundle");
  const { loadPyodide } = await import(`${indexURL}pyodide.mjs`);
  // Named here rather than loaded after, the wheel downloads while Python starts up.
  const pyodide = await loadPyodide({ indexURL, packages: ["rules_core"] });
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
