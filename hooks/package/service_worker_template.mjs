// The site's service worker. hooks/package/offline.py writes the build's file list into
// self.__OFFLINE_MANIFEST (see offline_manifest() there for its shape):
//
// - shell: the theme's and the site's assets, the search index, the home and 404 pages.
//   Stored on install: small, bounded whatever the amount of content, and mostly bytes
//   the page has just loaded (fetched with `no-cache`, so the HTTP cache answers 304).
// - groups: one per top folder (a system, the calculators, Compare). After the first page
//   has loaded, offline.mjs asks for every group: the whole reading site is kept in the
//   background (about the gzipped size of its pages), unless the browser asks to save
//   data; then pages are stored one by one as they are visited.
// - python: Pyodide and the rules_core wheel. Never stored in the background: kept the
//   first time the calculators' worker fetches it (the same response, no second
//   download), or fetched when the reader asks for it. A page whose calculators ran
//   before this service worker controlled it (the first page of a visit: offline.mjs
//   registers it once Python has answered) says so, and what the worker fetched is kept
//   from the HTTP cache; a file the cache did not keep (Chromium's in-memory cache, in a
//   private window, keeps no file as large as the wasm) is fetched again.
//
// Each part lives in a cache named after a hash of its files, so a deploy that changes
// a part starts a new cache for it and the old one is deleted when the new worker takes
// over. Python's files are fetched with their SHA-256 from this build's manifest
// (`integrity`), so a copy from another build can never be adopted. A navigation that
// finds neither the network nor a stored page says "You are offline" for a page of the
// site that is not stored, and shows 404.html for an address the site does not have.
/**
 * @typedef {import("../../types/offline-messages").OfflineRequest} OfflineRequest
 * @typedef {import("../../types/offline-messages").OfflineStatus} OfflineStatus
 * @typedef {import("../../types/offline-messages").OfflineReply} OfflineReply
 */
const MANIFEST = self.__OFFLINE_MANIFEST;
const PREFIX = "open-rules-reference-";
const scope = new URL(self.registration.scope);
const parts = [MANIFEST.shell, MANIFEST.python, ...Object.values(MANIFEST.groups)];
const cacheNames = new Set(parts.map((part) => PREFIX + part.name));
/** @type {Map<string, OfflinePart>} */
const owner = new Map(); // a file's path -> the part that stores it
for (const part of parts) for (const path of part.files) owner.set(path, part);
// A file's address -> its storing under way: two pages, or the worker's own fetch and a
// page's message, never download one file twice at once.
/** @type {Map<string, Promise<void>>} */
const storing = new Map();

self.addEventListener("install", (event) => {
  event.waitUntil(store(MANIFEST.shell, "no-cache"));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && !cacheNames.has(name)) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  const { type, page } = /** @type {Partial<OfflineRequest & {page: string}>} */ (event.data || {});
  if (type === "SKIP_WAITING") {
    self.skipWaiting();
    return;
  }
  const reply = (/** @type {OfflineReply} */ status) => event.ports[0] && event.ports[0].postMessage(status);
  const work = /** @type {Record<string, (() => Promise<OfflineStatus>) | undefined>} */ ({
    // offline.mjs, on every page: keep this page's group (unless saving data), keep
    // Python if the calculators' worker loaded it, and say what is stored.
    STATUS: async () => {
      const group = groupOf(page);
      // Saving data, the page being read is still kept: it loaded before this worker
      // controlled it, so it is in the HTTP cache (no-cache: a 304, no second body).
      if (group) await store(group, "no-cache", event.data.keep ? group.files : [pathOf(/** @type {string} */ (page))]);
      if (event.data.keep) {
        for (const other of Object.values(MANIFEST.groups)) await store(other, "no-cache");
      }
      // Python the page ran is kept: from the HTTP cache, else (unless saving data) from the
      // network. A download that fails leaves the footer's button to offer it again.
      const pythonMode = event.data.pythonUsed && event.data.keep ? "force-cache" : "only-if-cached";
      await store(MANIFEST.python, pythonMode).catch(() => {});
      return status(group);
    },
    // The reader asked for the calculators offline: their pages and Python.
    KEEP_PYTHON: async () => {
      const pages = MANIFEST.groups[MANIFEST.calculators];
      await Promise.all([store(MANIFEST.python, "default"), pages && store(pages, "no-cache")]);
      return status(groupOf(page));
    },
  })[/** @type {string} */ (type)];
  if (work) event.waitUntil(work().then(reply, (/** @type {unknown} */ error) => reply({ error: String(error) })));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(scope.href)) return;
  event.respondWith(respond(request, (/** @type {Promise<void>} */ kept) => event.waitUntil(kept)));
});

// keeping(promise): storing the response goes on after it is answered with.
/**
 * @param {Request} request
 * @param {(storing: Promise<void>) => void} keeping
 * @returns {Promise<Response>}
 */
async function respond(request, keeping) {
  const path = pathOf(request.url);
  const part = owner.get(path);
  const cache = part && (await caches.open(PREFIX + part.name));
  const stored = cache && (await cache.match(new URL(path, scope)));
  if (stored) return stored;
  try {
    const response = await fetch(request);
    // Pages, assets and Python are stored as they pass (a redirect is not: it answers
    // another address). Python's files are large: stored once, from this very response,
    // which the calculators' worker reads (and compiles) meanwhile, once checked.
    if (cache && response.ok && !response.redirected) {
      const address = new URL(path, scope);
      if (part === MANIFEST.python) {
        const copy = response.clone();
        keeping(once(address, () => putChecked(cache, address, path, copy)));
      } else await cache.put(address, response.clone());
    }
    return response;
  } catch (error) {
    if (request.mode !== "navigate") throw error;
    // A page of the site that is not stored: say so, and what is.
    if (part && part !== MANIFEST.python) return offlinePage();
    const missing = await caches.match(new URL(MANIFEST.fallback, scope), {
      cacheName: PREFIX + MANIFEST.shell.name,
    });
    if (missing) return missing;
    throw error;
  }
}

// The page shown offline for a page that is not stored: the site's own stylesheet, no
// script, links to the stored sections. Built from the manifest's paths only.
async function offlinePage() {
  const escape = (/** @type {string} */ text) =>
    text.replace(/[&<>"]/g, (c) => /** @type {Record<string, string>} */ ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const sections = [];
  for (const [name, group] of Object.entries(MANIFEST.groups)) {
    const home = `${name}/index.html`;
    if (group.files.includes(home) && (await stored(group, home))) {
      sections.push(`<li><a href="${escape(new URL(`${name}/`, scope).href)}">${escape(name)}</a></li>`);
    }
  }
  const icon = MANIFEST.shell.files.find((path) => path === "assets/images/favicon.png");
  const style = MANIFEST.shell.files.find((path) => /^assets\/stylesheets\/main\..*\.css$/.test(path));
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>You are offline</title>${style ? `<link rel="stylesheet" href="${escape(new URL(style, scope).href)}">` : ""}
${icon ? `<link rel="icon" href="${escape(new URL(icon, scope).href)}">` : ""}
</head><body><main class="md-main"><div class="md-content md-typeset">
<h1>You are offline</h1>
<p>This page is not stored on this device, and the network cannot be reached.</p>
<p><a href="${escape(scope.href)}">Home</a>${sections.length ? " · Stored sections:" : ""}</p>
<ul>${sections.join("")}</ul></div></main></body></html>`;
  // 200, not 503: the reader is shown a page the site wrote, not a failed load.
  return new Response(html, {
    status: 200,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/**
 * @param {OfflinePart} part
 * @param {string} path
 */
async function stored(part, path) {
  const cache = await caches.open(PREFIX + part.name);
  return Boolean(await cache.match(new URL(path, scope)));
}

// orcus/combat/?x=1 -> orcus/combat/index.html: the file the static server answers with.
/** @param {string} url */
function pathOf(url) {
  const path = decodeURIComponent(new URL(url).pathname.slice(scope.pathname.length));
  return path === "" || path.endsWith("/") ? `${path}index.html` : path;
}

/** @param {string | undefined} page */
function groupOf(page) {
  if (!page || !page.startsWith(scope.href)) return null;
  const part = owner.get(pathOf(page));
  return part && Object.values(MANIFEST.groups).includes(part) ? part : null;
}

// Put the files of a part (all, or those given) that its cache lacks into it. `mode` is
// the fetch cache mode: "only-if-cached" takes only what the HTTP cache holds and never
// touches the network.
/**
 * @param {OfflinePart & {integrity?: Record<string, string>}} part
 * @param {RequestCache} mode
 * @param {string[]} [files]
 */
async function store(part, mode, files = part.files) {
  const cache = await caches.open(PREFIX + part.name);
  const held = new Set((await cache.keys()).map((request) => pathOf(request.url)));
  const missing = files.filter((path) => !held.has(path));
  await Promise.all(
    missing.map(async (path) => {
      const address = new URL(path, scope);
      const storeIt = () =>
        once(address, async () => {
          if (await cache.match(address)) return; // stored meanwhile
          // Fetched by the address links use (orcus/combat/), which the HTTP cache knows.
          const fetched = new URL(path.replace(/(^|\/)index\.html$/, "$1"), scope);
          /** @type {RequestInit} */
          const init = mode === "only-if-cached" ? { cache: mode, mode: "same-origin" } : { cache: mode };
          // Python's files must be this build's, wherever they come from.
          if (part.integrity) init.integrity = part.integrity[path];
          const response = await fetch(fetched, init).catch(() => null);
          if (response && response.ok && !response.redirected) await cache.put(address, response);
        });
      await storeIt();
      if (mode === "only-if-cached" || (await cache.match(address))) return;
      // The storing waited for may have been another's, from the HTTP cache only.
      await storeIt();
      if (!(await cache.match(address))) throw new Error(`${path} could not be stored`);
    }),
  );
}

// One storing of a file at a time: a second asker waits for the first.
/**
 * @param {URL} address
 * @param {() => Promise<void>} storeIt
 * @returns {Promise<void>}
 */
function once(address, storeIt) {
  if (!storing.has(address.href)) {
    storing.set(address.href, storeIt().finally(() => storing.delete(address.href)));
  }
  return /** @type {Promise<void>} */ (storing.get(address.href));
}

// A Python file that passed on its way to the calculators' worker, kept only if it is this
// build's (one of its SHA-256 values from the manifest), as a fetch with `integrity` would
// check it: a damaged download is never kept.
/**
 * @param {Cache} cache
 * @param {URL} address
 * @param {string} path
 * @param {Response} response
 */
async function putChecked(cache, address, path, response) {
  const bytes = await response.arrayBuffer();
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const allowed = MANIFEST.python.integrity[path].split(" ");
  if (!allowed.includes(`sha256-${btoa(String.fromCharCode(...digest))}`)) return;
  const { status, statusText, headers } = response;
  await cache.put(address, new Response(bytes, { status, statusText, headers }));
}

/** @param {OfflinePart | null | undefined} part */
async function complete(part) {
  if (!part) return false;
  const cache = await caches.open(PREFIX + part.name);
  const held = new Set((await cache.keys()).map((request) => pathOf(request.url)));
  return part.files.every((path) => held.has(path));
}

/**
 * @param {OfflinePart | null} group
 * @returns {Promise<OfflineStatus>}
 */
async function status(group) {
  let pages = 0;
  let storedPages = 0;
  for (const part of Object.values(MANIFEST.groups)) {
    const cache = await caches.open(PREFIX + part.name);
    const held = new Set((await cache.keys()).map((request) => pathOf(request.url)));
    pages += part.files.length;
    storedPages += part.files.filter((path) => held.has(path)).length;
  }
  return {
    shell: await complete(MANIFEST.shell),
    group: group ? await complete(group) : null,
    pages,
    storedPages,
    python: await complete(MANIFEST.python),
    pythonBytes: MANIFEST.python.bytes,
  };
}
