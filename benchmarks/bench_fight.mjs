// Fight odds for the fights a table runs, in the browser's Python (Pyodide under Node, the
// bundle the site serves) and in this machine's CPython, in one run: five characters
// (+6, 1d8+3, defense 16) against six foes (+5, 1d8+2, defense 14) over 10 rounds, at 24
// and 15 hit points (a typical fight; target under 1 s in Pyodide) and at 60 and 40 (a
// mid-level one; target under 5 s). Each figure is the median of a few answers, each from
// a fresh request (the chain's turn tables are built per answer, so nothing is reused).
//
// Needs build/pyodide/ (`make setup`). Run from the repository root:
//     node benchmarks/bench_fight.mjs

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const side = (row, side, count, bonus, damage, defense, hp) => ({
  [`c${row}_side`]: side, [`c${row}_count`]: String(count), [`c${row}_bonus`]: String(bonus),
  [`c${row}_damage`]: damage, [`c${row}_defense`]: String(defense), [`c${row}_hp`]: String(hp),
});
const fight = (partyHp, opponentHp) => ({
  system: "orcus",
  ...side(1, "party", 5, 6, "1d8+3", 16, partyHp),
  ...side(2, "opponents", 6, 5, "1d8+2", 14, opponentHp),
  rounds: "10",
});
const FIGHTS = [
  { name: "typical, 24 against 15 hit points", inputs: fight(24, 15), runs: 5, target: 1 },
  { name: "mid-level, 60 against 40 hit points", inputs: fight(60, 40), runs: 3, target: 5 },
];

// The same Python in both: the worker's entry point, timed answer by answer.
const timed = (inputs, runs) => `
import json, statistics, time
from rules_core.web import handle_json
request = json.dumps({"calculator": "fight", "inputs": json.loads(${JSON.stringify(JSON.stringify(inputs))}), "base": ""})
times = []
for _ in range(${runs}):
    start = time.perf_counter()
    answer = json.loads(handle_json(request))
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
const python = path.join(ROOT, ".venv", "bin", "python");

console.log("fight odds over 10 rounds, 5 against 6 (figures from this machine, which may be shared)");
for (const { name, inputs, runs, target } of FIGHTS) {
  const code = timed(inputs, runs);
  const [inPyodide, summary] = JSON.parse(pyodide.runPython(code));
  const [inCPython] = JSON.parse(
    execFileSync(python, ["-c", code.replace(/\njson\.dumps\((.*)\)\n$/, "\nprint(json.dumps($1))\n")], {
      cwd: ROOT,
      encoding: "utf8",
    }),
  );
  console.log(`${name} (${summary})`);
  console.log(
    `  Pyodide, median of ${runs}: ${(inPyodide * 1000).toFixed(0)} ms ` +
      `(target < ${target * 1000}; ${(inPyodide / target).toFixed(2)} of it)`,
  );
  console.log(`  CPython, median of ${runs}: ${(inCPython * 1000).toFixed(0)} ms`);
  console.log(`  Pyodide / CPython: ${(inPyodide / inCPython).toFixed(2)}`);
}
