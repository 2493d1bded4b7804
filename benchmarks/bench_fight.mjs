// Fight odds for the fights a table runs, in the browser's Python (Pyodide under Node, the
// bundle the site serves) and in this machine's CPython, in one run: five characters
// (+6, 1d8+3, defense 16) against six foes (+5, 1d8+2, defense 14) over 10 rounds, at 24
// and 15 hit points (a typical fight; target under 1 s in Pyodide) and at 60 and 40 (a
// mid-level one; target under 5 s), in every system whose rules have the fight: each
// system's damage table (its critical hits) makes its own chain. Then fights of big
// multi-dice damage as long as the work limit lets through (target under 5 s as well). Each
// figure is the median of a few answers, each from a fresh request (the chain's turn
// tables are built per answer, so nothing is reused).
//
// Then the mid-level fights as the worker works them, in steps (one after each attack),
// letting the page's messages in every SLICE_MS: the time in all beside the answer given at
// once, the longest step, and how long after the page withdraws a request (an edit, half
// way through) the worker is free for the next one.
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
const fight = (system, partyHp, opponentHp) => ({
  system,
  ...side(1, "party", 5, 6, "1d8+3", 16, partyHp),
  ...side(2, "opponents", 6, 5, "1d8+2", 14, opponentHp),
  rounds: "10",
});
// Big multi-dice damage with critical hits, asked at the most rounds the work limit
// answers (each system's refusal of 30 says how many): four heroes of 4d10+8 against four
// foes of 2d8+4, and one of 10d10+20 against one of 8d6 with long blocks of hit points.
const bigDice = (system, party, opponents) => ({
  system,
  ...side(1, "party", ...party),
  ...side(2, "opponents", ...opponents),
  rounds: "most",
});
const BIG = [
  { name: "4d10+8 against 2d8+4, 80 and 60 hit points", party: [4, 8, "4d10+8", 16, 80], opponents: [4, 7, "2d8+4", 15, 60] },
  { name: "10d10+20 against 8d6, 400 and 300 hit points", party: [1, 8, "10d10+20", 16, 400], opponents: [1, 7, "8d6", 15, 300] },
];
const fightsOf = (systems) => [
  { name: `typical, 24 against 15 hit points, ${systems[0]}`, inputs: fight(systems[0], 24, 15), runs: 5, target: 1 },
  ...systems.map((system) => ({
    name: `mid-level, 60 against 40 hit points, ${system}`, inputs: fight(system, 60, 40), runs: 3, target: 5,
  })),
  ...BIG.flatMap(({ name, party, opponents }) => systems.map((system) => ({
    name: `${name}, ${system}`, inputs: bigDice(system, party, opponents), runs: 1, target: 5,
  }))),
];

// The same Python in both: the worker's entry point, timed answer by answer.
const timed = (inputs, runs) => `
import json, time
from rules_core.web import handle_json
request = json.dumps({"calculator": "fight", "inputs": json.loads(${JSON.stringify(JSON.stringify(inputs))}), "base": ""})
times = []
for _ in range(${runs}):
    start = time.perf_counter()
    answer = json.loads(handle_json(request))
    times.append(time.perf_counter() - start)
assert answer["ok"], answer
# The median (runs are odd), without the statistics module the browser's cut library lacks.
json.dumps([sorted(times)[len(times) // 2], answer["summary"]])
`;

const { loadPyodide } = await import(path.join(ROOT, "node_modules", "pyodide", "pyodide.mjs"));
const { answer, SLICE_MS } = await import(path.join(ROOT, "docs", "assets", "javascripts", "calculator-worker.mjs"));
const { startRulesCore } = await import(path.join(ROOT, "docs", "assets", "javascripts", "python-bundle.mjs"));
const bundle = path.join(ROOT, "build", "pyodide") + path.sep;
const pyodide = await startRulesCore(loadPyodide, bundle, async (name) =>
  new Uint8Array(readFileSync(bundle + name)),
);
const python = path.join(ROOT, ".venv", "bin", "python");

// The systems from the registry, and for a fight asked at "most" rounds, the rounds its
// refusal of 30 says can be answered.
const systems = JSON.parse(pyodide.runPython(`
import json
from rules_core.calculators.fight import RULE
from rules_core.systems import get_system, system_slugs
json.dumps([slug for slug in system_slugs() if RULE.met(get_system(slug))])
`));
const answerable = (inputs) => JSON.parse(pyodide.runPython(`
import json
from rules_core.web import handle_json
inputs = json.loads(${JSON.stringify(JSON.stringify({ ...inputs, rounds: "30" }))})
answer = json.loads(handle_json(json.dumps({"calculator": "fight", "inputs": inputs, "base": ""})))
json.dumps(30 if answer["ok"] else int(answer["errors"]["rounds"].rpartition(": ")[2].split()[0]))
`));

console.log("fight odds, 10 rounds unless said (figures from this machine, which may be shared)");
for (const { name, inputs: asked, runs, target } of fightsOf(systems)) {
  const inputs = asked.rounds === "most" ? { ...asked, rounds: String(answerable(asked)) } : asked;
  const code = timed(inputs, runs);
  const [inPyodide, summary] = JSON.parse(pyodide.runPython(code));
  const [inCPython] = JSON.parse(
    execFileSync(python, ["-c", code.replace(/\njson\.dumps\((.*)\)\n$/, "\nprint(json.dumps($1))\n")], {
      cwd: ROOT,
      encoding: "utf8",
    }),
  );
  console.log(`${name}, ${inputs.rounds} rounds (${summary})`);
  console.log(
    `  Pyodide, median of ${runs}: ${(inPyodide * 1000).toFixed(0)} ms ` +
      `(target < ${target * 1000}; ${(inPyodide / target).toFixed(2)} of it)`,
  );
  console.log(`  CPython, median of ${runs}: ${(inCPython * 1000).toFixed(0)} ms`);
  console.log(`  Pyodide / CPython: ${(inPyodide / inCPython).toFixed(2)}`);
}

// The core's Work with each step timed.
function timedWork(Work, steps) {
  return (request) => {
    const work = Work(request);
    return {
      step: () => {
        const begun = performance.now();
        try {
          return work.step();
        } finally {
          steps.push(performance.now() - begun);
        }
      },
      get done() { return work.done; },
      get total() { return work.total; },
      get response() { return work.response; },
      stop: () => work.stop(),
      destroy: () => work.destroy(),
    };
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const Work = pyodide.pyimport("rules_core.web").Work;
console.log(`\nmid-level fights worked in steps, as the worker does (a pause every ${SLICE_MS} ms)`);
for (const system of systems) {
  const request = JSON.stringify({ calculator: "fight", inputs: fight(system, 60, 40), base: "" });
  const atOnce = [];
  const inSteps = [];
  const steps = [];
  for (let run = 0; run < 3; run++) {
    let begun = performance.now();
    pyodide.pyimport("rules_core.web").handle_json(request);
    atOnce.push(performance.now() - begun);
    begun = performance.now();
    let response;
    await answer(timedWork(Work, steps), { id: run, request }, (message) => (response ??= message.response));
    inSteps.push(performance.now() - begun);
    if (!JSON.parse(response).ok) throw new Error(response);
  }
  // Withdrawn half way through: the page's message waits for the next pause.
  const stops = [];
  for (let run = 0; run < 3; run++) {
    const begun = performance.now();
    const withdrawnAt = begun + median(inSteps) / 2;
    const posted = [];
    await answer(Work, { id: run, request }, (message) => posted.push(message), {
      stopped: () => performance.now() >= withdrawnAt,
    });
    if (posted.some((message) => "response" in message)) throw new Error("a withdrawn fight answered");
    stops.push(performance.now() - withdrawnAt);
  }
  console.log(`mid-level, ${system}`);
  console.log(
    `  in steps, median of 3: ${median(inSteps).toFixed(0)} ms; at once ${median(atOnce).toFixed(0)} ms ` +
      `(in steps / at once: ${(median(inSteps) / median(atOnce)).toFixed(2)})`,
  );
  console.log(`  steps: ${steps.length / 3}, longest ${Math.max(...steps).toFixed(1)} ms`);
  console.log(
    `  withdrawn half way: free for the next request after ${median(stops).toFixed(0)} ms ` +
      `(median of 3; longest ${Math.max(...stops).toFixed(0)} ms)`,
  );
}
