// The calculators' worker works a long fight in steps: its progress messages
// ({id, progress: [done, total]}) are posted while Python works, before the answer; a quick
// answer comes alone; and a request the page withdraws stops at its next step, with
// nothing posted for it. Python is the bundle the site serves (build/pyodide), started as
// the worker starts it; the worker's own `answer` works the request.
//
// Run with `node --test tests/node/` after `make setup`.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide");
const { answer, PROGRESS_AFTER_MS, SLICE_MS } = await import(
  pathToFileURL(path.join(ROOT, "docs", "assets", "javascripts", "calculator-worker.mjs")).href
);
const { startRulesCore } = await import(
  pathToFileURL(path.join(ROOT, "docs", "assets", "javascripts", "python-bundle.mjs")).href
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
const QUICK = JSON.stringify({ calculator: "modifier", inputs: {}, base: "" });

async function rulesCore() {
  const entry = path.join(BUNDLE, "pyodide.mjs");
  if (!existsSync(entry)) throw new Error(`no Pyodide bundle in ${BUNDLE}: run \`make setup\``);
  const { loadPyodide } = await import(pathToFileURL(entry).href);
  const pyodide = await startRulesCore(loadPyodide, BUNDLE + path.sep, (name) =>
    Promise.resolve(new Uint8Array(readFileSync(path.join(BUNDLE, name)))),
  );
  return pyodide.pyimport("rules_core.web");
}

const web = await rulesCore();

// The core's own Work, with its steps counted: how much work was done, seen from outside.
function counted() {
  const count = { steps: 0 };
  const Work = (request) => {
    const work = web.Work(request);
    return {
      step: () => (count.steps++, work.step()),
      get done() { return work.done; },
      get total() { return work.total; },
      get response() { return work.response; },
      stop: () => work.stop(),
      destroy: () => work.destroy(),
    };
  };
  return { Work, count };
}

// A clock that moves `step` ms each time it is read: how long Python takes, made sure.
const clock = (step) => {
  let at = 0;
  return () => (at += step);
};

test("a long fight's progress is posted round by round, before its answer", async () => {
  const posted = [];
  await answer(web.Work, { id: 7, request: FIGHT }, (message) => posted.push(message), { now: clock(PROGRESS_AFTER_MS) });
  const last = posted.at(-1);
  assert.equal(last.id, 7);
  assert.ok(JSON.parse(last.response).ok, last.response);
  assert.equal(last.response, web.handle_json(FIGHT), "the answer is the one given at once");
  // Each round said once, as it is worked out (rounds done before it).
  assert.deepEqual(
    posted.slice(0, -1),
    Array.from({ length: ROUNDS }, (_, done) => ({ id: 7, progress: [done, ROUNDS] })),
  );
});

test("a quick answer comes alone, in one step, without letting other messages in", async () => {
  const posted = [];
  let pauses = 0;
  const { Work, count } = counted();
  const pause = async () => void pauses++;
  await answer(Work, { id: 8, request: QUICK }, (message) => posted.push(message), { now: clock(1000), pause });
  assert.deepEqual(posted.map(Object.keys), [["id", "response"]]);
  assert.ok(JSON.parse(posted[0].response).ok);
  assert.equal(count.steps, 1);
  assert.equal(pauses, 0);
});

test("progress is said only once the answer has taken long enough", async () => {
  // Python seen to take 40 ms a read of the clock: what is told before 150 ms is not.
  const posted = [];
  await answer(web.Work, { id: 9, request: FIGHT }, (message) => posted.push(message), { now: clock(40) });
  const told = posted.filter((message) => message.progress);
  assert.ok(told.length > 0 && told.length <= ROUNDS);
  assert.ok("response" in posted.at(-1));
  assert.deepEqual(told.map(({ progress }) => progress[0]), [...new Set(told.map(({ progress }) => progress[0]))]);
});

test("a withdrawn request stops at its next step and posts nothing", async () => {
  const whole = counted();
  await answer(whole.Work, { id: 10, request: FIGHT }, () => {}, { now: clock(1) });
  // Withdrawn while the work waits at its first pause: the page's message came in.
  const { Work, count } = counted();
  const posted = [];
  let withdrawn = false;
  let stepsAtWithdrawal;
  const pause = async () => {
    withdrawn = true;
    stepsAtWithdrawal = count.steps;
  };
  await answer(Work, { id: 11, request: FIGHT }, (message) => posted.push(message), {
    now: clock(SLICE_MS),
    pause,
    stopped: () => withdrawn,
  });
  assert.deepEqual(posted.filter((message) => "response" in message), []);
  assert.equal(count.steps, stepsAtWithdrawal, "no step after the withdrawal");
  assert.ok(count.steps < whole.count.steps / 4, `${count.steps} of ${whole.count.steps} steps`);
  // The next request is answered as if nothing had been stopped.
  const after = [];
  await answer(web.Work, { id: 12, request: FIGHT }, (message) => after.push(message));
  assert.equal(after.at(-1).response, web.handle_json(FIGHT));
});

test("a long fight lets the page's messages in between its steps", async () => {
  // The real pause (a task of its own), with the worker's clock: a message posted to the
  // worker while it works is heard before the answer.
  const { port1, port2 } = new MessageChannel();
  const heard = [];
  port1.onmessage = () => heard.push("message");
  const posted = [];
  const working = answer(web.Work, { id: 13, request: FIGHT }, (message) => {
    posted.push(message);
    if ("response" in message) heard.push("answer");
  }, { now: clock(SLICE_MS) });
  port2.postMessage("withdraw?");
  try {
    await working;
  } finally {
    port1.close(); // else the open port keeps Node running
  }
  assert.deepEqual(heard, ["message", "answer"]);
});
