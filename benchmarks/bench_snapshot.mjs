// What the bundle's snapshot of Python (hooks/package/make_snapshot.mjs) gives the
// calculators' cold start, in Node, in one run: without the browser's page around it, and
// the size it costs. Times, each in a fresh Node process (so no compiled WebAssembly is
// reused), the median of RUNS:
//   - a bare loadPyodide() of the bundle's runtime;
//   - the worker's start without the snapshot (its startRulesCore), the import, a first
//     answer, as on a slow connection;
//   - the same answer from Python restored from the snapshot, as the worker restores it on
//     a fast one.
// It fails if the restored Python's answer differs from the one started without it.
// `_loadSnapshot` is a private option of the pinned Pyodide: run this at each upgrade.
//
// Needs build/pyodide/ (`make setup`). Run from the repository root:
//     node benchmarks/bench_snapshot.mjs

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide") + path.sep;
const RUNS = 5;
const REQUEST = JSON.stringify({ calculator: "attack", inputs: { bonus: "+7" }, base: "" });
const MANIFEST = JSON.parse(readFileSync(BUNDLE + "bundle.json", "utf8"));
const { pythonFrom } = await import(path.join(ROOT, "hooks", "package", "node_python.mjs"));
const { withZeroRuns } = await import(path.join(ROOT, "docs", "assets", "javascripts", "python-snapshot.mjs"));

// One start, in this process: prints {ms, answer} as JSON.
async function boot(mode) {
  const begun = performance.now();
  let answer = "";
  if (mode === "bare") {
    const { loadPyodide } = await import(BUNDLE + "pyodide.mjs");
    await loadPyodide({ indexURL: BUNDLE });
  } else {
    // Python as the calculators' worker starts it, or restores it.
    const memory = () => withZeroRuns(readFileSync(BUNDLE + MANIFEST.snapshot.name));
    const options = mode === "snapshot" ? { _loadSnapshot: memory() } : {};
    answer = (await pythonFrom(BUNDLE, options)).pyimport("rules_core.web").handle_json(REQUEST);
  }
  console.log(JSON.stringify({ ms: performance.now() - begun, answer }));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const times = { bare: [], built: [], snapshot: [] };
  const answers = {};
  for (let run = 0; run < RUNS; run++) {
    for (const mode of Object.keys(times)) {
      const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), mode]);
      const { ms, answer } = JSON.parse(output.toString().trim().split("\n").pop());
      times[mode].push(ms);
      answers[mode] = answer;
    }
  }
  if (answers.snapshot !== answers.built) {
    console.error("Python restored from the snapshot gave a different answer");
    return 1;
  }
  const bare = median(times.bare);
  console.log(`Node ${process.version}, median of ${RUNS} fresh processes each`);
  for (const [mode, label] of [
    ["bare", "bare loadPyodide()"],
    ["built", "started (wheel, import, first answer)"],
    ["snapshot", "restored from the snapshot (first answer)"],
  ]) {
    const ms = median(times[mode]);
    console.log(`${label.padEnd(42)} ${ms.toFixed(0).padStart(5)} ms, ${(ms / bare).toFixed(2)} x bare`);
  }
  const megabytes = (count) => `${(count / 1e6).toFixed(1)} MB`;
  const { size, bytes } = MANIFEST.snapshot;
  const memory = withZeroRuns(readFileSync(BUNDLE + MANIFEST.snapshot.name)).length;
  console.log(
    `snapshot: Python's ${megabytes(memory)} of memory, ${megabytes(size)} without its runs of zeros, ` +
      `${megabytes(bytes)} gzipped, beside the runtime's own files`,
  );
  return 0;
}

const [mode] = process.argv.slice(2);
if (mode) await boot(mode);
else process.exitCode = await main();
