// The calculators' worker when Python stops: a real Pyodide whose stack overflows while it
// works a request (JSON nested 50,000 deep, which rules_core.web now refuses before parsing,
// parsed here directly) cannot answer anything after it; the worker's loop answers that
// request {id, died} with the error and works nothing more, for the page to start a new
// worker, whose Python answers. Messages not of the worker's shape are ignored, and never
// reach Python.
//
// Run with `node --test tests/node/` after `make setup`.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide");
const SCRIPTS = path.join(ROOT, "docs", "assets", "javascripts");
const { toWorker, workRequests } = await import(pathToFileURL(path.join(SCRIPTS, "calculator-worker.mjs")).href);
const { startRulesCore } = await import(pathToFileURL(path.join(SCRIPTS, "python-bundle.mjs")).href);

async function python() {
  const entry = path.join(BUNDLE, "pyodide.mjs");
  if (!existsSync(entry)) throw new Error(`no Pyodide bundle in ${BUNDLE}: run \`make setup\``);
  const { loadPyodide } = await import(pathToFileURL(entry).href);
  return startRulesCore(loadPyodide, BUNDLE + path.sep, (name) =>
    Promise.resolve(new Uint8Array(readFileSync(path.join(BUNDLE, name)))),
  );
}

// rules_core.web's Work, but for one request, "overflow", which parses JSON nested 50,000
// deep: what a request did to the browser's Python before rules_core.web bounded it.
const OVERFLOWING = `
import json
from rules_core.web import Work

class Overflowing(Work):
    def step(self):
        if self._request == "overflow":
            json.loads("[" * 50_000 + "]" * 50_000)
        return super().step()

    def __init__(self, request):
        self._request = request
        super().__init__(request)
`;
const QUICK = JSON.stringify({ calculator: "modifier", inputs: {}, base: "" });

/** Every message the loop posts, once it has worked what it was given. */
async function worked(Work, messages) {
  const posted = [];
  const requests = workRequests(Promise.resolve({ Work }), (message) => posted.push(message), []);
  for (const message of messages) requests(message);
  // The loop works asynchronously: wait until it has answered (or died on) what it can.
  for (let tries = 0; tries < 200 && !posted.some((m) => "died" in m || "response" in m); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await new Promise((resolve) => setTimeout(resolve, 100)); // anything more it would post
  return posted;
}

test("Python whose stack overflows is answered {id, died} and works nothing more; a new one answers", async () => {
  const dying = await python();
  dying.runPython(OVERFLOWING);
  const posted = await worked(dying.globals.get("Overflowing"), [
    { id: 1, request: "overflow" },
    { id: 2, request: QUICK },
  ]);
  assert.equal(posted.length, 1, JSON.stringify(posted));
  assert.equal(posted[0].id, 1);
  assert.match(posted[0].died, /Maximum call stack size exceeded|stack/i);
  // It is dead: it answers nothing, which is why the loop stops using it.
  assert.throws(() => dying.runPython("1 + 1"));
  // A Python started anew (as the page's new worker starts it) answers the same loop's way.
  const fresh = await python();
  const answered = await worked(fresh.pyimport("rules_core.web").Work, [{ id: 3, request: QUICK }]);
  assert.deepEqual(answered.map((message) => message.id), [3]);
  assert.equal(JSON.parse(answered[0].response).ok, true);
});

test("a message not of the worker's shape is ignored and never reaches Python", async () => {
  const malformed = [
    null, "text", 7, [], {}, { id: "1", request: QUICK }, { id: 1.5, request: QUICK },
    { id: 1, request: { calculator: "modifier" } }, { id: Number.MAX_SAFE_INTEGER + 2, request: QUICK },
    { prepare: "attack" }, { prepare: [1] }, { prepare: Array(65).fill("attack") }, { prepare: ["a".repeat(65)] },
    { withdraw: "1" }, { withdraw: Infinity },
  ];
  for (const message of malformed) assert.equal(toWorker(message), null, JSON.stringify(message));
  assert.deepEqual(toWorker({ id: 4, request: QUICK, extra: "<img>" }), { id: 4, request: QUICK });
  assert.deepEqual(toWorker({ prepare: ["attack", "fight"] }), { prepare: ["attack", "fight"] });
  assert.deepEqual(toWorker({ withdraw: 4 }), { withdraw: 4 });
  let called = 0;
  const Work = () => {
    called++;
    throw new Error("Python was reached");
  };
  assert.deepEqual(await worked(Work, malformed), []);
  assert.equal(called, 0);
});
