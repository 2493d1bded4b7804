// What a Pyodide memory snapshot would give the calculators' cold start, in one run.
//
// The site does not use one. `_makeSnapshot` and `_loadSnapshot` are private options of
// loadPyodide() in the pinned Pyodide, which its maintainers call experimental, with
// restore failures still open upstream (pyodide/pyodide#6254). A snapshot also fixes
// Python's hash seed and random state for every reader, and it comes on top of the
// runtime unless Python's standard library is left out, which holds only while nothing
// imports from it after the snapshot. This script keeps the question answerable at each
// Pyodide upgrade. It makes a snapshot with rules_core imported, then times, each in a
// fresh Node process (so no compiled WebAssembly is reused), the median of RUNS:
//   - a bare loadPyodide();
//   - the worker's boot as built (its startRulesCore), the import, a first answer;
//   - the same answer from a boot restored from the snapshot.
// It fails if the restored boot's answer differs from the one booted as built.
//
// The wheel is unpacked by hand: a snapshot refuses the JavaScript references that
// loadPackage() leaves behind ("Unexpected hiwire entry"). Files are not in a snapshot,
// only memory, so the systems' data is read (by a first answer) before it is taken.
//
// Needs build/pyodide/ (`make setup`). Run from the repository root:
//     node benchmarks/bench_snapshot.mjs

import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide") + path.sep;
const RUNS = 5;
const REQUEST = JSON.stringify({ calculator: "attack", inputs: { bonus: "+7" }, base: "" });

// Pyodide's whole standard library, as npm ships it, in every boot here: the snapshot's
// maker unpacks the wheel with zipfile, which the bundle's cut of it leaves out.
const WHOLE_STDLIB = path.join(ROOT, "node_modules", "pyodide", "python_stdlib.zip");

async function pyodide(options = {}) {
  const { loadPyodide } = await import(path.join(ROOT, "node_modules", "pyodide", "pyodide.mjs"));
  return loadPyodide({ indexURL: BUNDLE, stdLibURL: WHOLE_STDLIB, ...options });
}

// Python started as the calculators' worker starts it.
async function asBuilt() {
  const worker = path.join(ROOT, "docs", "assets", "javascripts", "calculator-worker.mjs");
  const { startRulesCore } = await import(worker);
  return startRulesCore(pyodide, BUNDLE, async (name) => new Uint8Array(readFileSync(BUNDLE + name)));
}

async function makeSnapshot(file) {
  const wheel = readdirSync(BUNDLE).find((name) => /^rules_core-.*\.whl$/.test(name));
  const py = await pyodide({ _makeSnapshot: true });
  py.FS.writeFile("/tmp/rules_core.whl", readFileSync(path.join(BUNDLE, wheel)));
  py.runPython(`
import gc, os, site, zipfile
zipfile.ZipFile("/tmp/rules_core.whl").extractall(site.getsitepackages()[0])
os.remove("/tmp/rules_core.whl")
import rules_core.web
rules_core.web.handle_json(${JSON.stringify(REQUEST)})
gc.collect()
`);
  writeFileSync(file, py.makeMemorySnapshot());
}

// One boot, in this process: prints {ms, answer} as JSON.
async function boot(mode, file) {
  const start = performance.now();
  let answer = "";
  if (mode === "bare") {
    await pyodide();
  } else {
    const py =
      mode === "snapshot" ? await pyodide({ _loadSnapshot: readFileSync(file) }) : await asBuilt();
    answer = py.pyimport("rules_core.web").handle_json(REQUEST);
  }
  console.log(JSON.stringify({ ms: performance.now() - start, answer }));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const folder = mkdtempSync(path.join(os.tmpdir(), "snapshot-"));
  const file = path.join(folder, "rules_core.snapshot");
  try {
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), "make", file]);
    const times = { bare: [], built: [], snapshot: [] };
    const answers = {};
    for (let run = 0; run < RUNS; run++) {
      for (const mode of Object.keys(times)) {
        const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), mode, file]);
        const { ms, answer } = JSON.parse(output.toString().trim().split("\n").pop());
        times[mode].push(ms);
        answers[mode] = answer;
      }
    }
    if (answers.snapshot !== answers.built) {
      console.error("the boot restored from the snapshot gave a different answer");
      return 1;
    }
    const bytes = readFileSync(file);
    const bare = median(times.bare);
    console.log(`Node ${process.version}, median of ${RUNS} fresh processes each`);
    for (const [mode, label] of [
      ["bare", "bare loadPyodide()"],
      ["built", "as built (wheel, import, first answer)"],
      ["snapshot", "from the snapshot (first answer)"],
    ]) {
      const ms = median(times[mode]);
      const ratio = (ms / bare).toFixed(2);
      console.log(`${label.padEnd(40)} ${ms.toFixed(0).padStart(5)} ms, ${ratio} x bare`);
    }
    const megabytes = (count) => `${(count / 1e6).toFixed(1)} MB`;
    console.log(
      `snapshot size: ${megabytes(bytes.length)}, ${megabytes(gzipSync(bytes).length)} gzipped, ` +
        "beside the runtime's own files",
    );
    return 0;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const [mode, file] = process.argv.slice(2);
if (mode === "make") await makeSnapshot(file);
else if (mode) await boot(mode, file);
else process.exitCode = await main();
