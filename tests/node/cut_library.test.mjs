// The bundle as the site serves it: Python's standard library cut to what the calculators
// import (hooks/package/pyodide_bundle.py), and every file the worker downloads gzipped,
// checked against the build's SHA-256 as it is decompressed.
//
// - Every calculator answers for every system, with its form's defaults and with every
//   field refused, on the cut library, started as the worker starts it and worked by the
//   worker's own `answer`: each response is CPython's (rules_core.web.handle_json), string
//   for string. The calculators and systems come from the rules core's registry and its
//   compiled data, never from here.
// - So does Python restored from the bundle's snapshot (hooks/package/make_snapshot.mjs),
//   as the worker restores it; each restore has random numbers of its own.
// - The worker fetches the snapshot only where the WebAssembly arrives fast (pace), and
//   uses it once its bytes have arrived in time, however long its inflating takes.
// - The worker's `unpack` gives each compressed file's content, byte for byte; a file cut
//   short, altered, or from another build fails as "damaged", a connection that drops as
//   "download"; a host that sent the file decoded is read as it is.
//
// Run with `node --test tests/node/` after `make setup` (which builds build/pyodide/).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { answer } from "../../docs/assets/javascripts/calculator-worker.mjs";
import { StartFailure, contentOf, unpack } from "../../docs/assets/javascripts/python-bundle.mjs";
import {
  SNAPSHOT_PACE,
  pace,
  snapshotInTime,
  withZeroRuns,
  withoutZeroRuns,
} from "../../docs/assets/javascripts/python-snapshot.mjs";
import { pythonFrom } from "../../hooks/package/node_python.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide");
const PYTHON = path.join(ROOT, ".venv", "bin", "python");
const WHOLE_STDLIB = path.join(ROOT, "node_modules", "pyodide", "python_stdlib.zip");
const MANIFEST = JSON.parse(readFileSync(path.join(BUNDLE, "bundle.json"), "utf8"));
const ROLES = ["wasm", "stdlib", "wheel", "snapshot"];

// Every calculator for every system, and every field refused, as CPython answers them.
const REQUESTS_AND_ANSWERS = `
import json
from rules_core.calculators import CALCULATORS
from rules_core.systems import system_slugs
from rules_core.web import handle_json

requests = []
for name, calculator in CALCULATORS.items():
    refused = {field.name: "?" for field in calculator.fields}
    for system in system_slugs():
        for inputs in ({"system": system}, {**refused, "system": system}):
            requests.append(json.dumps({"calculator": name, "inputs": inputs, "base": "../../"}))
# Requests no form sends but another page's code could: nested to the bound, one deeper and
# 50,000 deep (which would overflow the stack of the browser's Python as it parsed them),
# longer than the bound, and not a Request.
from rules_core.web import MAX_REQUEST_DEPTH, MAX_REQUEST_LENGTH

def nested(depth):
    # The request and its inputs nest two: a bonus nested depth - 2 more.
    return '{"calculator": "attack", "inputs": {"bonus": ' + "[" * (depth - 2) + "]" * (depth - 2) + "}}"

requests += [
    nested(MAX_REQUEST_DEPTH),
    nested(MAX_REQUEST_DEPTH + 1),
    nested(50_000),
    "[" * 50_000,
    json.dumps({"calculator": "attack", "inputs": {"bonus": "6" * (MAX_REQUEST_LENGTH - 49)}}),
    json.dumps({"calculator": "attack", "inputs": {"bonus": "6" * MAX_REQUEST_LENGTH}}),
    json.dumps({"calculator": "attack", "inputs": {"bonus": "x" * 5_000_000}}),
    '{"calculator": 5}',
    '{"calculator": "attack", "inputs": []}',
    '{"calculator": "attack", "inputs": {"bonus": {"a": 1}, "defense": null}}',
    '{"calculator": "attack", "base": {"x": 1}}',
    "null",
    '"attack"',
]
print(json.dumps({
    "calculators": list(CALCULATORS),
    "systems": list(system_slugs()),
    "requests": requests,
    "answers": [handle_json(request) for request in requests],
}))
`;

function cpython(script) {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, ["-c", script], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${PYTHON} failed (${error.message}): ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

const expected = cpython(REQUESTS_AND_ANSWERS);
expected.catch(() => {}); // reported by the test that awaits it

// Python on the cut library as the worker starts it; restored from the bundle's snapshot
// with `{_loadSnapshot}` in options.
async function cutPython(options = {}) {
  if (!existsSync(path.join(BUNDLE, "bundle.json"))) {
    throw new Error(`no Pyodide bundle in ${BUNDLE}: run \`make setup\``);
  }
  // No stdLibURL: Pyodide reads the bundle's own python_stdlib.zip, the cut the site serves.
  return pythonFrom(BUNDLE, options);
}

const restoredPython = () =>
  cutPython({ _loadSnapshot: withZeroRuns(readFileSync(path.join(BUNDLE, MANIFEST.snapshot.name))) });

// Every request of `expected`, worked by the worker's `answer`, checked against CPython's.
async function answersAsCPython(t, pyodide) {
  const { calculators, systems, requests, answers } = await expected;
  assert.ok(calculators.length >= 10 && systems.length >= 2, `${calculators} ${systems}`);
  const Work = pyodide.pyimport("rules_core.web").Work;
  for (const [id, request] of requests.entries()) {
    const name = request.length > 120 ? `${request.slice(0, 100)}… (${request.length} characters)` : request;
    await t.test(name, async () => {
      const posted = [];
      await answer(Work, { id, request }, (message) => posted.push(message));
      assert.equal(posted.at(-1).response, answers[id]);
    });
  }
  const answered = answers.filter((response) => JSON.parse(response).ok).length;
  assert.ok(answered >= calculators.length * systems.length, `only ${answered} answers`);
}

// The number of members of a zip archive, from its end-of-central-directory record.
function members(file) {
  const bytes = readFileSync(file);
  for (let at = bytes.length - 22; at >= 0; at--) {
    if (bytes.readUInt32LE(at) === 0x06054b50) return bytes.readUInt16LE(at + 10);
  }
  throw new Error(`${file} is not a zip archive`);
}

test("every calculator answers for every system on the cut standard library, as in CPython", async (t) => {
  const cut = members(path.join(BUNDLE, "python_stdlib.zip"));
  const whole = members(WHOLE_STDLIB);
  assert.ok(cut < whole / 2, `the cut keeps ${cut} of ${whole} files`);
  const pyodide = await cutPython();
  // The command line's parser is not in it: the site never runs the command line.
  assert.throws(() => pyodide.runPython("import argparse"), /ModuleNotFoundError/);
  await answersAsCPython(t, pyodide);
});

test("Python restored from the snapshot answers every calculator for every system, as in CPython", async (t) => {
  const pyodide = await restoredPython();
  // Restored, not started: the rules core is loaded before anything asks for it.
  assert.equal(pyodide.runPython("'rules_core.web' in __import__('sys').modules"), true);
  await answersAsCPython(t, pyodide);
});

test("each Python restored from the snapshot has random numbers of its own", async () => {
  const draws = [];
  for (const _ of [1, 2]) {
    const pyodide = await restoredPython();
    draws.push(pyodide.runPython("import random; [random.random() for _ in range(4)]").toJs());
  }
  // Not the snapshot's (random.seed(0), make_snapshot.mjs), and not each other's.
  const snapshots = (await cutPython()).runPython("import random; random.seed(0); [random.random() for _ in range(4)]").toJs();
  assert.notDeepEqual(draws[0], snapshots);
  assert.notDeepEqual(draws[1], snapshots);
  assert.notDeepEqual(draws[0], draws[1]);
});

test("a memory without its runs of zeros is given back byte for byte, and a cut one refused", () => {
  const memory = new Uint8Array(10_000);
  memory.set([1, 2, 3], 0); // bytes first
  memory.set([4, 0, 0, 5], 500); // a run too short to leave out
  memory.fill(6, 3000, 3100);
  memory[9_999] = 7; // bytes last
  const packed = withoutZeroRuns(memory);
  assert.ok(packed.length < 400, `${packed.length} bytes`);
  assert.deepEqual(withZeroRuns(packed), memory);
  for (const zeros of [new Uint8Array(5000), new Uint8Array(0)]) {
    assert.deepEqual(withZeroRuns(withoutZeroRuns(zeros)), zeros);
  }
  assert.throws(() => withZeroRuns(packed.subarray(0, packed.length - 1)));
  const longer = new Uint8Array(packed.length + 1);
  longer.set(packed);
  assert.throws(() => withZeroRuns(longer));
});

test("the snapshot is fetched only where the WebAssembly arrives fast", async () => {
  let clock = 0;
  const now = () => clock;
  const quick = pace({ bytes: 1000, ms: 50 }, now);
  quick.counted(400);
  clock = 30;
  quick.counted(700);
  assert.equal(await quick.fast, true);
  clock = 0;
  const slow = pace({ bytes: 1000, ms: 50 }, now);
  slow.counted(400);
  clock = 60;
  slow.counted(700);
  assert.equal(await slow.fast, false);
  // A download that stalls is slow once its time has passed, whatever comes after.
  const stalled = pace({ bytes: 1000, ms: 20 });
  stalled.counted(10);
  assert.equal(await stalled.fast, false);
  // At the slowest pace that fetches it, the snapshot takes less than a second, less than
  // it saves on a phone: a snapshot grown past that would slow the start it speeds up.
  const slowest = SNAPSHOT_PACE.bytes / SNAPSHOT_PACE.ms; // bytes per millisecond
  assert.ok(MANIFEST.snapshot.bytes / slowest < 1000, `${MANIFEST.snapshot.bytes} bytes`);
});

test("a snapshot whose bytes have arrived is used however long its inflating takes; one late is not waited for", async () => {
  const after = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  const memory = new Uint8Array([1, 2, 3]);
  const waitMs = 40;
  // Its bytes in before the wait is up, its inflating long past it (a busy device): used.
  assert.equal(await snapshotInTime(after(10, true), after(6 * waitMs, memory), after(0), waitMs), memory);
  // Its bytes in well after Python's own files (a slow network): not waited for.
  const late = snapshotInTime(after(6 * waitMs, true), after(6 * waitMs, memory), after(0), waitMs);
  assert.equal(await Promise.race([late, after(3 * waitMs, "still waiting")]), null);
  // Not fetched, lost or damaged: none.
  assert.equal(await snapshotInTime(after(5, false), after(5, memory), after(0), waitMs), null);
  assert.equal(await snapshotInTime(after(5, true), after(5, null), after(0), waitMs), null);
  // The wait counts from Python's own files: bytes that come before those are waited for.
  assert.equal(await snapshotInTime(after(2 * waitMs, true), after(0, memory), after(3 * waitMs), waitMs), memory);
});

// A Response whose body comes in chunks of `size` bytes, as a network sends it.
function chunked(bytes, size = 64 * 1024, { failAt = Infinity } = {}) {
  let at = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (at >= failAt) return controller.error(new TypeError("network error"));
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
  return new Response(body);
}

const stored = (role) => new Uint8Array(readFileSync(path.join(BUNDLE, MANIFEST[role].file)));
const content = (role) => new Uint8Array(readFileSync(path.join(BUNDLE, MANIFEST[role].name)));

test("each compressed file unpacks to the file the build compressed, every byte counted", async () => {
  for (const role of ROLES) {
    const entry = MANIFEST[role];
    let counted = 0;
    const unpacked = await unpack(chunked(stored(role)), entry, { counted: (n) => (counted += n) });
    const bytes = await contentOf(unpacked);
    assert.equal(counted, entry.bytes, role);
    assert.equal(bytes.length, entry.size, role);
    assert.deepEqual(bytes, content(role), role);
    assert.ok(entry.bytes < entry.size, `${role} is not smaller compressed`);
  }
});

test("a file a host sent decoded (with a Content-Encoding) is read as it arrived", async () => {
  const entry = MANIFEST.wheel;
  let decoded = null;
  const unpacked = await unpack(chunked(content("wheel")), entry, { decoded: (found) => (decoded = found) });
  assert.deepEqual(await contentOf(unpacked), content("wheel"));
  assert.equal(decoded, entry);
});

async function failure(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StartFailure, String(error));
    return error.kind;
  }
  assert.fail("no failure");
}

test("a file cut short, altered or of another build is damaged; a dropped connection is not", async () => {
  const bytes = stored("stdlib");
  const entry = MANIFEST.stdlib;
  const truncated = bytes.slice(0, Math.floor(bytes.length / 2));
  const altered = bytes.slice();
  altered[Math.floor(bytes.length / 3)] ^= 0xff;
  const tail = bytes.slice();
  tail[bytes.length - 1] ^= 0xff; // the gzip trailer's size: the content itself is whole
  const unpackedAs = (body, as = entry) => unpack(chunked(body), as).then(contentOf);
  assert.equal(await failure(unpackedAs(truncated)), "damaged");
  assert.equal(await failure(unpackedAs(altered)), "damaged");
  assert.equal(await failure(unpackedAs(tail)), "damaged");
  // Another build's file: whole and valid, but not the one this build's bundle.json lists.
  const other = { ...entry, sha256: "0".repeat(64) };
  assert.equal(await failure(unpackedAs(bytes, other)), "damaged");
  const dropped = unpack(chunked(bytes, 64 * 1024, { failAt: 128 * 1024 }), entry).then(contentOf);
  assert.equal(await failure(dropped), "download");
});
