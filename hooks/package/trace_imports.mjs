// What the calculators' Python imports, found by running it (hooks/package/pyodide_bundle.py
// cuts the standard library to it):
//
//   node hooks/package/trace_imports.mjs BUNDLE_DIR MODULES_JSON
//
// starts Pyodide from BUNDLE_DIR (its runtime, its whole standard library, the lock file and
// the rules_core wheel) as the calculators' worker starts it (its own startRulesCore and
// answer), imports each of the rules core's modules MODULES_JSON names, and answers every
// calculator for every system, with the form's defaults and with every field refused, as
// the worker answers a page. It prints one JSON object: `modules` (each module Python has
// loaded, by name, with where it was loaded from: a path in the standard library's zip,
// "built-in", "frozen", or null) and `stdlib` (the zip's path). The lists it walks come
// from the rules core itself (its registry and its systems), never from here.
import { answer } from "../../docs/assets/javascripts/calculator-worker.mjs";
import { pythonFrom } from "./node_python.mjs";

const [bundleDir, modulesJson] = process.argv.slice(2);
if (!bundleDir || !modulesJson) {
  console.error("usage: node hooks/package/trace_imports.mjs BUNDLE_DIR MODULES_JSON");
  process.exit(1);
}

try {
  const pyodide = await pythonFrom(bundleDir);
  // Only builtins here: what the trace itself imports must not count.
  const load = pyodide.runPython("lambda name: __import__(name)");
  for (const name of JSON.parse(modulesJson)) load(name);
  load.destroy();
  pyodide.runPython("import gc; gc.freeze()"); // as the worker does once it is ready
  const Work = pyodide.pyimport("rules_core.web").Work;
  const registry = pyodide.runPython(
    "lambda: __import__('rules_core.calculators', fromlist=['CALCULATORS']).CALCULATORS",
  )();
  const systems = pyodide.runPython(
    "lambda: list(__import__('rules_core.systems', fromlist=['system_slugs']).system_slugs())",
  )().toJs();
  const calculators = [...registry.keys()].map((name) => {
    const fields = pyodide.runPython("lambda c: [field.name for field in c.fields]")(registry.get(name)).toJs();
    return { name, fields };
  });
  const requests = [JSON.stringify({ calculator: "", inputs: [], base: "" }), "{not json"];
  for (const { name, fields } of calculators) {
    for (const system of systems) {
      const refused = Object.fromEntries(fields.map((field) => [field, "?"]));
      for (const inputs of [{ system }, { ...refused, system }]) {
        requests.push(JSON.stringify({ calculator: name, inputs, base: "../../" }));
      }
    }
  }
  let answered = 0;
  for (const [id, request] of requests.entries()) {
    await answer(Work, { id, request }, (message) => {
      if ("response" in message) answered += 1;
    });
  }
  if (answered !== requests.length) throw new Error(`${requests.length - answered} requests went unanswered`);
  const modules = pyodide
    .runPython(
      "[(name, getattr(getattr(module, '__spec__', None), 'origin', None)) for name, module in __import__('sys').modules.items()]",
    )
    .toJs();
  const stdlib = pyodide.runPython("[entry for entry in __import__('sys').path if entry.endswith('.zip')][0]");
  process.stdout.write(JSON.stringify({ modules: Object.fromEntries(modules), stdlib }) + "\n");
} catch (error) {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}
