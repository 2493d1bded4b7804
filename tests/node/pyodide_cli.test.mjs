// The rules_core wheel under Pyodide (the bundle the site serves) against the CLI under
// CPython: every case of tests/cases/cli_cases.json must give the same stdout, stderr and
// exit status, and the calculator pages' `handle_json` the same response string.
//
// The command line runs on Pyodide's whole standard library, as npm ships it: the site
// serves a cut of it (cut_library.test.mjs runs the calculators on that), without the
// command line's argparse.
//
// Run with `node --test tests/node/` after `make setup` (which builds build/pyodide/).
// A missing or outdated bundle fails the tests; it never skips them.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUNDLE = path.join(ROOT, "build", "pyodide");
const WHOLE_STDLIB = path.join(ROOT, "node_modules", "pyodide", "python_stdlib.zip");
const PYTHON = path.join(ROOT, ".venv", "bin", "python");
// Python starts here as it does in the calculators' worker.
const { startRulesCore } = await import(
  pathToFileURL(path.join(ROOT, "docs", "assets", "javascripts", "python-bundle.mjs")).href
);
const CASES = JSON.parse(readFileSync(path.join(ROOT, "tests", "cases", "cli_cases.json"), "utf8"));

// argparse wraps --help text to the terminal width: pin it on both sides.
const COLUMNS = "80";
const CHILD_ENV = { ...process.env, COLUMNS, PYTHONUTF8: "1" };
delete CHILD_ENV.LINES;

const WEB_REQUESTS = [
  { calculator: "modifier", inputs: {}, base: "" },
  { calculator: "modifier", inputs: { system: "4e-core", score: "15" }, base: "../" },
  { calculator: "pointbuy", inputs: {}, base: "" },
  { calculator: "pointbuy", inputs: { str: "18", con: "18", dex: "18" }, base: "" },
  { calculator: "abilityroll", inputs: {}, base: "../../" },
  { calculator: "level", inputs: { xp: "4500" }, base: "" },
  { calculator: "level", inputs: { xp: "-3" }, base: "" },
  { calculator: "attack", inputs: {}, base: "" },
  {
    calculator: "attack",
    inputs: {
      system: "into-the-unknown",
      bonus: "4",
      defense: "15",
      mode: "advantage",
      situations: "half-cover",
      damage: "1d8+2",
      attacks: "2",
    },
    base: "../",
  },
  {
    calculator: "attack",
    inputs: { system: "3d6-combat", escalation: "3", situations: "weak", resist: "12" },
    base: "",
  },
  { calculator: "attack", inputs: { system: "orcus", mode: "disadvantage" }, base: "" },
  { calculator: "damage", inputs: {}, base: "" },
  { calculator: "fight", inputs: {}, base: "" },
  {
    calculator: "fight",
    inputs: { first: "opponents", rounds: "4", party_situations: "combat-advantage", c2_hp: "x" },
    base: "../",
  },
  { calculator: "fight", inputs: { first: "opponents", rounds: "3", c1_count: "2" }, base: "" },
  {
    calculator: "damage",
    inputs: { expression: "1dW+4", weapon: "d10", crit: "on", extra_crit: "1d6", hp: "15" },
    base: "",
  },
  { calculator: "damage", inputs: { expression: "2d6+<script>" }, base: "" },
  { calculator: "encounter", inputs: {}, base: "" },
  {
    calculator: "encounter",
    inputs: { party: "5", level: "3", m1_level: "3", m1_rank: "elite", m1_count: "1" },
    base: "",
  },
  { calculator: "roll", inputs: {}, base: "" },
  { calculator: "roll", inputs: { expression: "4d6kh3", seed: "7", rolled: "on" }, base: "" },
  { calculator: "teleport", inputs: {}, base: "" },
  { calculator: "check", inputs: {}, base: "" },
  {
    calculator: "check",
    inputs: { system: "into-the-unknown", roll: "check", target: "15", mode: "both", group: "1, 4" },
    base: "../",
  },
  { calculator: "check", inputs: { system: "orcus", roll: "check", versus: "2" }, base: "" },
  { calculator: "dying", inputs: {}, base: "" },
  { calculator: "dying", inputs: { system: "3d6-combat", failures: "2" }, base: "" },
];
const WEB_STRINGS = [...WEB_REQUESTS.map((request) => JSON.stringify(request)), "{not json", "[]"];

// ---------------------------------------------------------------------- CPython side

function runCPython(args) {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      args,
      { cwd: ROOT, env: CHILD_ENV, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(new Error(`could not run ${PYTHON} (${error.message}): run \`make setup\``));
          return;
        }
        resolve({ stdout, stderr, status: error ? error.code : 0 });
      },
    );
  });
}

const HARNESS = `
import contextlib, io, json, os
os.environ["COLUMNS"] = ${JSON.stringify(COLUMNS)}
import rules_core.cli

def run_cli(argv_json):
    """Like \`python -m rules_core *argv\`: stdout, stderr and the exit status."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = rules_core.cli.main(json.loads(argv_json))
        except SystemExit as exit:  # argparse's --help; same mapping as the interpreter's
            status = exit.code
            if status is None:
                status = 0
            elif not isinstance(status, int):
                print(status, file=stderr)
                status = 1
    return json.dumps({"stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "status": status})
`;

const WEB_SCRIPT = `
import json, sys
from rules_core.web import handle_json
print(json.dumps([handle_json(request) for request in json.loads(sys.argv[1])]))
`;

// Every case in one CPython process, through the harness the Pyodide side runs: what is
// compared is the interpreter, not how a process starts (tests/test_cli.py runs
// \`python -m rules_core\` as a process: its exit status, a pipe that closes). A process per
// case cost about a quarter of a second of CPU each, most of this file's time.
const CPYTHON_CLI = `${HARNESS}
import sys
print(json.dumps([json.loads(run_cli(json.dumps(argv))) for argv in json.loads(sys.argv[1])]))
`;

// Started at once, in parallel with loading Pyodide; awaited by the tests.
const cpythonCli = runCPython(["-c", CPYTHON_CLI, JSON.stringify(CASES)]).then((result) => {
  assert.equal(result.status, 0, `the CLI cases under CPython failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
});
const cpythonWeb = runCPython(["-c", WEB_SCRIPT, JSON.stringify(WEB_STRINGS)]).then((result) => {
  assert.equal(result.status, 0, `handle_json under CPython failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
});
cpythonCli.catch(() => {}); // reported by the tests that await them
cpythonWeb.catch(() => {});

// ---------------------------------------------------------------------- Pyodide side

function newestSource() {
  const files = [path.join(ROOT, "rules_core", "data", "systems.json"), path.join(ROOT, "pyproject.toml")];
  for (const name of readdirSync(path.join(ROOT, "rules_core"), { recursive: true })) {
    if (name.endsWith(".py")) files.push(path.join(ROOT, "rules_core", name));
  }
  return files
    .filter((file) => existsSync(file))
    .reduce((newest, file) => {
      const mtime = statSync(file).mtimeMs;
      return mtime > newest.mtime ? { file, mtime } : newest;
    }, { file: null, mtime: 0 });
}


let pyodidePromise;

function loadBundle() {
  pyodidePromise ??= (async () => {
    const lock = path.join(BUNDLE, "pyodide-lock.json");
    const entry = path.join(BUNDLE, "pyodide.mjs");
    if (!existsSync(lock) || !existsSync(entry)) {
      throw new Error(`no Pyodide bundle in ${BUNDLE}: run \`make setup\` (or \`make build/pyodide/pyodide-lock.json\`)`);
    }
    const newest = newestSource();
    if (newest.mtime > statSync(lock).mtimeMs) {
      throw new Error(
        `the Pyodide bundle is older than ${path.relative(ROOT, newest.file)}: ` +
          "run `make build/pyodide/pyodide-lock.json` (or `make setup`)",
      );
    }
    const { loadPyodide } = await import(pathToFileURL(entry).href);
    const pyodide = await startRulesCore(loadPyodide, BUNDLE + path.sep, readBundleFile, {
      stdLibURL: WHOLE_STDLIB,
    });
    pyodide.runPython(HARNESS);
    return pyodide;
  })();
  return pyodidePromise;
}

function readBundleFile(name, sha256) {
  // The browser checks the lock file's digest as it fetches (Subresource Integrity).
  const bytes = readFileSync(path.join(BUNDLE, name));
  if (sha256) assert.equal(createHash("sha256").update(bytes).digest("hex"), sha256, `${name}'s digest`);
  return Promise.resolve(new Uint8Array(bytes));
}

function pyodideCli(pyodide, argv) {
  const runCli = pyodide.globals.get("run_cli");
  try {
    return JSON.parse(runCli(JSON.stringify(argv)));
  } finally {
    runCli.destroy();
  }
}

// ---------------------------------------------------------------------- tests

test("rules_core is imported from the bundle's compiled wheel, as it is", async () => {
  const pyodide = await loadBundle();
  const found = JSON.parse(
    pyodide.runPython(`
import importlib.metadata, importlib.resources, json, zipimport
import rules_core, rules_core.cli, rules_core.web

def files(folder):
    for item in folder.iterdir():
        yield from files(item) if item.is_dir() else [item.name]

json.dumps({
    "files": [module.__file__ for module in (rules_core, rules_core.cli, rules_core.web)],
    "zipped": isinstance(rules_core.__spec__.loader, zipimport.zipimporter),
    "sources": sorted(name for name in files(importlib.resources.files("rules_core")) if name.endswith(".py")),
    "version": importlib.metadata.version("rules_core"),
    "data": importlib.resources.files("rules_core").joinpath("data/systems.json").is_file(),
})
`),
  );
  const lock = JSON.parse(readFileSync(path.join(BUNDLE, "pyodide-lock.json"), "utf8"));
  const wheel = Object.values(lock.packages).find((entry) => entry.imports.includes("rules_core"));
  for (const file of found.files) {
    assert.ok(file.startsWith(`/lib/${wheel.file_name}/rules_core/`), `${file} is not in the wheel`);
    assert.match(file, /\.pyc$/, `${file} is not compiled`);
  }
  assert.equal(found.zipped, true, "rules_core was not imported from the wheel's archive");
  assert.deepEqual(found.sources, [], "the wheel holds .py sources");
  assert.equal(found.data, true, "rules_core/data/systems.json is not in the wheel");
  const pyproject = readFileSync(path.join(ROOT, "pyproject.toml"), "utf8");
  assert.equal(found.version, /^version = "([^"]+)"/m.exec(pyproject)[1]);
});

test(`the CLI gives the same stdout, stderr and status in Pyodide and CPython (${CASES.length} cases)`, async (t) => {
  assert.ok(CASES.length >= 25, "tests/cases/cli_cases.json lists too few cases");
  const pyodide = await loadBundle();
  const expected = await cpythonCli;
  for (const [index, argv] of CASES.entries()) {
    await t.test(`rules_core ${argv.join(" ") || "(no arguments)"}`, () => {
      assert.deepEqual(pyodideCli(pyodide, argv), expected[index]);
    });
  }
});

test("the cases reach every subcommand, all four systems, and errors", async () => {
  const commands = new Set(CASES.map((argv) => argv[0]));
  for (const name of ["modifier", "pointbuy", "abilityroll", "level", "attack", "damage", "encounter", "roll"]) {
    assert.ok(commands.has(name), `no case runs ${name}`);
  }
  const systems = new Set(CASES.flatMap((argv) => argv.filter((_, i) => argv[i - 1] === "--system")));
  for (const slug of ["orcus", "3d6-combat", "into-the-unknown", "4e-core"]) {
    assert.ok(systems.has(slug), `no case uses ${slug}`);
  }
  const statuses = (await cpythonCli).map((result) => result.status);
  assert.ok(statuses.filter((status) => status === 2).length >= 5, "too few invalid inputs");
  assert.ok(statuses.filter((status) => status === 0).length >= 25, "too few valid inputs");
});

test("handle_json returns the same string in Pyodide and CPython", async (t) => {
  const pyodide = await loadBundle();
  const expected = await cpythonWeb;
  const handleJson = pyodide.pyimport("rules_core.web").handle_json;
  try {
    for (const [index, request] of WEB_STRINGS.entries()) {
      await t.test(request, () => {
        assert.equal(handleJson(request), expected[index]);
      });
    }
  } finally {
    handleJson.destroy();
  }
  const okCount = expected.filter((response) => JSON.parse(response).ok).length;
  assert.ok(okCount >= 10, `only ${okCount} requests succeeded under CPython`);
});
