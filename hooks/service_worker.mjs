// The site's service worker, made with Workbox in two steps:
//
//   node hooks/service_worker.mjs bundle TEMPLATE        (make setup, once per install)
//   node hooks/service_worker.mjs inject SITE_DIR TEMPLATE  (every build, hooks/offline.py)
//
// bundle: rollup inlines Workbox's runtime into service_worker_template.mjs and minifies
// it, leaving the `self.__WB_MANIFEST` placeholder: one file, nothing to import at run
// time and nothing from a CDN. inject: Workbox's injectManifest lists every page, the
// search index and worker, the theme's and our CSS/JS/images, the manifest and icons,
// and the Pyodide runtime with the rules_core wheel, each with a revision, and writes
// SITE_DIR/sw.js. Bundling once keeps the build quick: injecting only globs and hashes.
//
// inject prints {"count", "size", "files"} as JSON; any warning (a file too big to
// precache, a pattern that matched nothing) is an error.
import path from "node:path";
import { fileURLToPath } from "node:url";

const [step, ...args] = process.argv.slice(2);
const steps = { bundle, inject };
if (!steps[step] || args.length !== (step === "bundle" ? 1 : 2)) {
  console.error(
    "usage: node hooks/service_worker.mjs bundle TEMPLATE\n" +
      "       node hooks/service_worker.mjs inject SITE_DIR TEMPLATE",
  );
  process.exit(1);
}
try {
  await steps[step](...args);
} catch (error) {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}

async function bundle(template) {
  const { rollup } = await import("rollup");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const { default: replace } = await import("@rollup/plugin-replace");
  const { default: terser } = await import("@rollup/plugin-terser");
  const source = fileURLToPath(new URL("service_worker_template.mjs", import.meta.url));
  const bundled = await rollup({
    input: source,
    plugins: [
      nodeResolve({ browser: true }),
      // Workbox's production build: no logging, no development checks.
      replace({ preventAssignment: true, values: { "process.env.NODE_ENV": '"production"' } }),
      terser({ format: { comments: false } }),
    ],
  });
  await bundled.write({ file: template, format: "iife", sourcemap: false });
  await bundled.close();
}

async function inject(siteDir, template) {
  // The one module of workbox-build this step needs: its index loads the bundler too.
  const { injectManifest } = await import("workbox-build/build/inject-manifest.js");
  let precached = [];
  const { count, size, warnings } = await injectManifest({
    swSrc: template,
    swDest: path.join(siteDir, "sw.js"),
    globDirectory: siteDir,
    globPatterns: [
      "**/*.html",
      "search/search_index.json",
      "manifest.webmanifest",
      "assets/**/*.{css,js,mjs}",
      // Images and fonts in one pattern: the theme's web fonts are off (no font files yet).
      "assets/**/*.{png,svg,ico,jpg,jpeg,gif,webp,woff,woff2,ttf,otf}",
      "assets/pyodide/*.{mjs,js,wasm,zip,whl,json}",
    ],
    globIgnores: ["**/*.map", "**/node_modules/**"],
    // pyodide.asm.wasm is 8.7 MB and python_stdlib.zip 4.2 MB.
    maximumFileSizeToCacheInBytes: 32 * 1024 * 1024,
    // The theme's bundles carry a content hash in their name: no revision needed.
    dontCacheBustURLsMatching: /\.[0-9a-f]{8}\.min\.(?:css|js)$/,
    // Keeps the list for the report (injectManifest itself returns only counts).
    manifestTransforms: [
      (manifest) => {
        precached = manifest.map((entry) => entry.url);
        return { manifest, warnings: [] };
      },
    ],
  });
  if (warnings.length) throw new Error(warnings.join("\n"));
  console.log(JSON.stringify({ count, size, files: precached }));
}
