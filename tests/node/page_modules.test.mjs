// The page's JavaScript (docs/assets/javascripts/) as one element: no module reaches itself
// again through what it imports (a static `import … from`, an `export … from` or a dynamic
// `import("./…")`), no file is over 600 lines, and the calculators' worker imports nothing
// statically, so that its first download is not a round trip late. The imports are read
// from the files themselves by a JavaScript parser (rollup's, which the build has for the
// service worker): an import written in a comment or a JSDoc type is not one.
//
// Run with `node --test tests/node/` after `make setup`.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAst } from "rollup/parseAst";

const JAVASCRIPTS = fileURLToPath(new URL("../../docs/assets/javascripts/", import.meta.url));
const MOST_LINES = 600; // the guide's limit for a page script
const WORKER = "calculator-worker.mjs"; // the calculators' worker, started by calculator-boot.js

/**
 * Each module's imports of other files of the page, as paths relative to the folder:
 * `statics` (import … from, export … from) and `dynamics` (import("./…") with a literal
 * address; an address computed at run time, Pyodide's, is no module of the page's).
 * @param {Record<string, string>} sources file name -> its text
 */
function importsOf(sources) {
  const graph = {};
  for (const [name, source] of Object.entries(sources)) {
    const statics = [];
    const dynamics = [];
    const from = (specifier) =>
      specifier.startsWith(".") ? path.posix.normalize(path.posix.join(path.posix.dirname(name), specifier)) : null;
    const walk = (node) => {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(walk);
      const exportsFrom = node.type === "ExportNamedDeclaration" || node.type === "ExportAllDeclaration";
      if ((node.type === "ImportDeclaration" || exportsFrom) && node.source) {
        const target = from(node.source.value);
        if (target) statics.push(target);
      }
      if (node.type === "ImportExpression") {
        const address = node.source;
        const literal =
          address.type === "Literal" ? address.value
          : address.type === "TemplateLiteral" && !address.expressions.length ? address.quasis[0].value.cooked
          : null;
        const target = typeof literal === "string" ? from(literal) : null;
        if (target) dynamics.push(target);
      }
      for (const [key, value] of Object.entries(node)) {
        if (key !== "type" && key !== "start" && key !== "end") walk(value);
      }
    };
    walk(parseAst(source));
    graph[name] = { statics, dynamics };
  }
  return graph;
}

// A way from a module back to itself through the graph's imports, static or dynamic (its
// modules in order, the first again at the end), or null where there is none.
function cycleIn(graph) {
  const done = new Set();
  const onPath = [];
  const visit = (name) => {
    const at = onPath.indexOf(name);
    if (at >= 0) return [...onPath.slice(at), name];
    if (done.has(name) || !graph[name]) return null;
    onPath.push(name);
    const { statics, dynamics } = graph[name];
    for (const next of [...statics, ...dynamics]) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(name);
    return null;
  };
  for (const name of Object.keys(graph).sort()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return null;
}

// Every module a module's static imports bring, however deep.
function staticallyBrought(graph, name, brought = new Set()) {
  for (const next of graph[name]?.statics ?? []) {
    if (brought.has(next)) continue;
    brought.add(next);
    staticallyBrought(graph, next, brought);
  }
  return brought;
}

const pageFiles = readdirSync(JAVASCRIPTS, { recursive: true })
  .map((name) => name.split(path.sep).join("/"))
  .filter((name) => /\.m?js$/.test(name))
  .sort();
const sources = Object.fromEntries(pageFiles.map((name) => [name, readFileSync(path.join(JAVASCRIPTS, name), "utf8")]));
const graph = importsOf(sources);

test("the reading of imports finds a cycle through a re-export and a dynamic import, not a comment's", () => {
  // As the calculators' modules had one: calculators.mjs -> calculator-address.mjs (which
  // re-exported from calculator-loader.mjs) -> calculator-loader.mjs -> import("./calculators.mjs").
  const looped = importsOf({
    "widgets.mjs": 'import { keep } from "./address.mjs";\nexport const bind = () => keep;',
    "address.mjs": 'export { initial as keep } from "./loader.mjs";',
    "loader.mjs": 'export const initial = 1;\nconst later = () => import("./widgets.mjs");',
  });
  assert.deepEqual(cycleIn(looped), ["address.mjs", "loader.mjs", "widgets.mjs", "address.mjs"]);
  const commented = importsOf({
    "a.mjs": '// import("./b.mjs")\n/** @typedef {import("./b.mjs").T} T */\nexport const a = 1;',
    "b.mjs": 'import { a } from "./a.mjs";\nexport const b = a;',
  });
  assert.equal(cycleIn(commented), null);
  assert.deepEqual(commented["a.mjs"], { statics: [], dynamics: [] });
});

test("the page's modules import one another without a cycle", () => {
  assert.ok(pageFiles.includes(WORKER) && pageFiles.includes("calculator-loader.mjs"), pageFiles.join(" "));
  for (const [name, { statics, dynamics }] of Object.entries(graph)) {
    for (const target of [...statics, ...dynamics]) {
      assert.ok(existsSync(path.join(JAVASCRIPTS, target)), `${name} imports ${target}, which is not there`);
    }
  }
  const cycle = cycleIn(graph);
  assert.equal(cycle, null, `an import cycle: ${cycle?.join(" -> ")}`);
});

test(`no file of the page's JavaScript is over ${MOST_LINES} lines`, () => {
  const long = pageFiles
    .map((name) => [name, sources[name].split("\n").length - (sources[name].endsWith("\n") ? 1 : 0)])
    .filter(([, lines]) => lines > MOST_LINES);
  assert.deepEqual(long, []);
});

test("the calculators' worker asks at once for every module its start runs", () => {
  // Its static imports would be fetched before it ran, one round trip each level, ahead of
  // Python's first download: it has none, and imports each module the start brings itself.
  const { statics, dynamics } = graph[WORKER];
  assert.deepEqual(statics, []);
  assert.ok(dynamics.length, `${WORKER} imports the start of Python`);
  for (const started of dynamics) {
    for (const brought of staticallyBrought(graph, started)) {
      assert.ok(dynamics.includes(brought), `${started} brings ${brought}, which ${WORKER} does not ask for`);
    }
  }
});
