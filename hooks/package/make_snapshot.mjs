// A memory snapshot of Python with the rules core loaded, for the calculators' worker to
// start from instead of starting Python (hooks/package/pyodide_bundle.py runs it):
//
//   node hooks/package/make_snapshot.mjs BUNDLE_DIR OUT_FILE
//
// starts Pyodide from the finished BUNDLE_DIR (its runtime, its cut and compiled standard
// library, its compiled wheel) as the calculators' worker starts it (startRulesCore),
// answers every calculator for every system with its form's defaults, so that what they
// import and the rules data they read are in Python's memory, and writes that memory to
// OUT_FILE, without its runs of zeros (withoutZeroRuns). A worker restored from it answers
// at once (see python-snapshot.mjs). The lists it walks come from the rules core itself
// (its registry and its systems).
//
// `_makeSnapshot` is a private option of the pinned Pyodide: tests/node/cut_library.test.mjs
// checks that a Python restored from the snapshot answers every request as CPython does.
//
// The same bundle gives the same bytes. A snapshot keeps the clock, the entropy and the
// hash seed it was made with, so this process gives Python a fixed clock, a fixed stream
// of "random" bytes and a fixed hash seed: a snapshot is public, and what it holds is no
// secret in any case. The worker reseeds Python's random numbers after each restore.
import { writeFileSync } from "node:fs";
import nodeCrypto from "node:crypto";
import { withoutZeroRuns } from "../../docs/assets/javascripts/python-snapshot.mjs";
import { pythonFrom } from "./node_python.mjs";

const [bundleDir, outFile] = process.argv.slice(2);
if (!bundleDir || !outFile) {
  console.error("usage: node hooks/package/make_snapshot.mjs BUNDLE_DIR OUT_FILE");
  process.exit(1);
}

const FIXED_TIME = Date.UTC(1980, 0, 1); // the bundle's archives' date (ARCHIVE_DATE)
Date.now = () => FIXED_TIME;
performance.now = () => 0;
let state = 1;
const fixedBytes = (array) => {
  if (!array) return array;
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let index = 0; index < bytes.length; index++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return array;
};
globalThis.crypto.getRandomValues = fixedBytes;
nodeCrypto.randomFillSync = fixedBytes; // what Pyodide calls under Node

try {
  // Pyodide is loaded here, once the clock and the entropy above are fixed.
  const pyodide = await pythonFrom(bundleDir, { env: { PYTHONHASHSEED: "0" }, _makeSnapshot: true });
  pyodide.runPython(`
import gc, json, random
from rules_core.calculators import CALCULATORS
from rules_core.systems import system_slugs
from rules_core.web import handle_json

for _name in CALCULATORS:
    for _system in system_slugs():
        handle_json(json.dumps({"calculator": _name, "inputs": {"system": _system}, "base": ""}))
del _name, _system
random.seed(0)
gc.collect()
`);
  writeFileSync(outFile, withoutZeroRuns(pyodide.makeMemorySnapshot()));
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  process.exit(1);
}
