// Minifies the site's service worker once per install (make setup):
//
//   node hooks/package/service_worker.mjs bundle TEMPLATE
//
// writes TEMPLATE from service_worker_template.mjs, leaving its `self.__OFFLINE_MANIFEST`
// placeholder, which every build fills with the site's files (hooks/package/offline.py, in Python:
// no Node start and no second pass over the files per build). The worker imports nothing:
// one file, nothing from a CDN.
import { fileURLToPath } from "node:url";

const [step, ...args] = process.argv.slice(2);
if (step !== "bundle" || args.length !== 1) {
  console.error("usage: node hooks/package/service_worker.mjs bundle TEMPLATE");
  process.exit(1);
}
try {
  await bundle(args[0]);
} catch (error) {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}

async function bundle(template) {
  const { rollup } = await import("rollup");
  const { default: terser } = await import("@rollup/plugin-terser");
  const source = fileURLToPath(new URL("service_worker_template.mjs", import.meta.url));
  const bundled = await rollup({
    input: source,
    plugins: [terser({ format: { comments: false } })],
  });
  await bundled.write({ file: template, format: "iife", sourcemap: false });
  await bundled.close();
}
