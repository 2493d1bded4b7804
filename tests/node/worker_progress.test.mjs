// The calculators' worker says how far a long fight has got: its progress messages
// ({id, progress: [done, total]}) are posted while Python works, before the answer, and a
// quick answer comes alone. Python is the bundle the site serves (build/pyodide), started
// as the worker starts it; the worker's own `answer` posts the messages.
//
// Run with `node --test tests/node/` after `make setup`.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide");
const { startRulesCore, answer, PROGRESS_AFTER_MS } = await import(
  pathToFileURL(path.join(ROOT, "docs", "assets", "javascripts", "calculator-worker.mjs")).href
);

// A fight of several rounds, in the form's default system: five characters against six orcs.
const ROUNDS = 6;
const FIGHT = JSON.stringify({
  calculator: "fight",
  inputs: {
    rounds: String(ROUNDS),
    c1_side: "party", c1_count: "5", c1_bonus: "6", c1_damage: "1d8+3", c1_defense: "16", c1_hp: "24",
    c2_side: "opponents", c2_count: "6", c2_bonus: "5", c2_damage: "1d8+2", c2_defense: "14", c2_hp: "15",
  },
  base: "",
});

async function rulesCore() {
  const entry = path.join(BUNDLE, "pyodide.mjs");
  if (!existsSync(entry)) throw new Error(`no Pyodide bundle in ${BUNDLE}: run \`make setup\``);
  const { loadPyodide } = await import(pathToFileURL(entry).href);
  const pyodide = await startRulesCore(loadPyodide, BUNDLE + path.sep, (name) =>
    Promise.resolve(new Uint8Array(readFileSync(path.join(BUNDLE, name)))),
  );
  return pyodide.pyimport("rules_core.web").handle_json;
}

const handleJson = await rulesCore();

// A clock that moves `step` ms each time it is read: how long Python takes, made sure.
const clock = (step) => {
  let at = 0;
  return () => (at += step);
};

test("a long fight's progress is posted round by round, before its answer", () => {
  const posted = [];
  answer(handleJson, { id: 7, request: FIGHT }, (message) => posted.push(message), clock(PROGRESS_AFTER_MS));
  const last = posted.at(-1);
  assert.equal(last.id, 7);
  assert.ok(JSON.parse(last.response).ok, last.response);
  assert.equal(last.response, handleJson(FIGHT), "the answer is the one given without a listener");
  const progress = posted.slice(0, -1);
  assert.deepEqual(
    progress,
    Array.from({ length: ROUNDS }, (_, done) => ({ id: 7, progress: [done + 1, ROUNDS] })),
  );
});

test("a quick answer comes without progress messages", () => {
  const posted = [];
  answer(handleJson, { id: 8, request: FIGHT }, (message) => posted.push(message), clock(1));
  assert.equal(posted.length, 1);
  assert.equal(posted[0].id, 8);
  assert.ok("response" in posted[0]);
});

test("progress is said only once the answer has taken long enough", () => {
  // Python seen to take 40 ms a read of the clock: the rounds told before 150 ms are not.
  const posted = [];
  answer(handleJson, { id: 9, request: FIGHT }, (message) => posted.push(message), clock(40));
  const told = posted.filter((message) => message.progress).map((message) => message.progress[0]);
  const quiet = Math.ceil(PROGRESS_AFTER_MS / 40) - 1; // reads before the first told
  assert.deepEqual(told, Array.from({ length: ROUNDS - quiet }, (_, at) => at + quiet + 1));
  assert.ok("response" in posted.at(-1));
});
