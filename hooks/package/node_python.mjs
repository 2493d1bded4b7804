// Python in Node, started from a bundle folder as the calculators' worker starts it (its
// startRulesCore, python-bundle.mjs), for the bundle's own steps: trace_imports.mjs and
// make_snapshot.mjs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startRulesCore } from "../../docs/assets/javascripts/python-bundle.mjs";

// Python from the bundle in `bundleDir`, `options` given to loadPyodide. Python's own
// output goes to stderr: a step's standard output is its answer, and the build shows
// stderr when a step fails.
export async function pythonFrom(bundleDir, options = {}) {
  const bundle = path.resolve(bundleDir) + path.sep;
  const { loadPyodide } = await import(pathToFileURL(path.join(bundle, "pyodide.mjs")).href);
  const read = async (name) => new Uint8Array(readFileSync(path.join(bundle, name)));
  const quiet = { stdout: (line) => console.error(line), stderr: (line) => console.error(line) };
  return startRulesCore(loadPyodide, bundle, read, { ...quiet, ...options });
}
