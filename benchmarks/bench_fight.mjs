// Fight odds for a party of 5 against 6 opponents, in the browser's Python (Pyodide under
// Node, the bundle the site serves) and in this machine's CPython, in one run.
// Target: under 1 s in Pyodide. Each figure is the median of RUNS answers, each from a
// fresh rules core (the chain's turn tables are built per answer, so nothing is reused).
//
// Needs build/pyodide/ (`make setup`). Run from the repository root:
//     node benchmarks/bench_fight.mjs

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const RUNS = 5;
const FIGHT = {
  system: "orcus",
  c1_side: "party", c1_count: "5", c1_bonus: "6", c1_damage: "1d8+3", c1_defense: "16", c1_hp: "24",
  c2_side: "opponents", c2_count: "6", c2_bonus: "4", c2_damage: "1d6+2", c2_defense: "14", c2_hp: "11",
  rounds: "10",
};
const REQUEST = JSON.stringify({ calculator: "fight", inputs: FIGHT, base: "" });
const TIMED = `
import json, statistics, time
from rules_core.web import handle_json
times = []
for _ in range(${RUNS}):
    start = time.perf_counter()
    answer = json.loads(handle_json(${JSON.stringify(REQUEST)}))
    times.append(time.perf_counter() - start)
assert answer["ok"], answer
json.dumps([statistics.median(times), answer["summary"]])
`;

const { loadPyodide } = await import(path.join(ROOT, "node_modules", "pyodide", "pyodide.mjs"));
const { startRulesCore } = await import(
  path.join(ROOT, "docs", "assets", "javascripts", "calculator-worker.mjs")
);
const bundle = path.join(ROOT, "build", "pyodide") + path.sep;
const pyodide = await startRulesCore(loadPyodide, bundle, async (name) =>
  new Uint8Array(readFileSync(bundle + name)),
);
const [inPyodide, summary] = JSON.parse(pyodide.runPython(TIMED));
const python = path.join(ROOT, ".venv", "bin", "python");
const [inCPython] = JSON.parse(
  execFileSync(python, ["-c", TIMED.replace(/\njson\.dumps\((.*)\)\n$/, "\nprint(json.dumps($1))\n")], {
    cwd: ROOT,
    encoding: "utf8",
  }),
);
console.log(`fight odds, 5 against 6 over 10 rounds (${summary})`);
console.log(`  Pyodide, median of ${RUNS}: ${(inPyodide * 1000).toFixed(0)} ms (target < 1000)`);
console.log(`  CPython, median of ${RUNS}: ${(inCPython * 1000).toFixed(0)} ms`);
console.log(`  Pyodide / CPython: ${(inPyodide / inCPython).toFixed(2)}`);
