// Writes the site's service worker with Workbox's generateSW: every page, the search
// index and worker, the theme's and our CSS/JS/images, the manifest and icons, and the
// Pyodide runtime with the rules_core wheel, precached with a revision per file.
//
//   node hooks/service_worker.mjs SITE_DIR
//
// Prints {"count", "size", "files"} as JSON; any warning (a file too big to precache,
// a pattern that matched nothing) is an error. hooks/offline.py runs it after the build.
import path from "node:path";
import { generateSW } from "workbox-build";

const [siteDir] = process.argv.slice(2);
if (!siteDir) {
  console.error("usage: node hooks/service_worker.mjs SITE_DIR");
  process.exit(1);
}

let precached = [];
try {
  const { count, size, warnings } = await generateSW({
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
    swDest: path.join(siteDir, "sw.js"),
    // One file, no workbox-*.js beside it and nothing fetched from a CDN.
    inlineWorkboxRuntime: true,
    sourcemap: false,
    mode: "production",
    cacheId: "open-rules-reference",
    // /orcus/combat/ is served from orcus/combat/index.html; the calculators keep their
    // inputs in the query (?system=...), which the static pages never depend on.
    directoryIndex: "index.html",
    ignoreURLParametersMatching: [/.*/],
    cleanupOutdatedCaches: true,
    // The first visit is controlled at once; a new version waits until the page asks for
    // it (offline.mjs posts {type: "SKIP_WAITING"} when the reader chooses Reload).
    clientsClaim: true,
    skipWaiting: false,
    // Keeps the list for the report (generateSW itself returns only counts).
    manifestTransforms: [
      (manifest) => {
        precached = manifest.map((entry) => entry.url);
        return { manifest, warnings: [] };
      },
    ],
  });
  if (warnings.length) {
    console.error(warnings.join("\n"));
    process.exit(1);
  }
  console.log(JSON.stringify({ count, size, files: precached }));
} catch (error) {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}
