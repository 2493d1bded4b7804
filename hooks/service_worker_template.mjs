// The site's service worker, before bundling: Workbox precaches every file the build
// lists into self.__WB_MANIFEST (hooks/service_worker.mjs injects the list) and serves
// them from the cache, so every page, the search and the calculators work offline.
import { clientsClaim, setCacheNameDetails } from "workbox-core";
import { cleanupOutdatedCaches, precacheAndRoute } from "workbox-precaching";

setCacheNameDetails({ prefix: "open-rules-reference" });

// The first visit is controlled at once; a new version waits until the page asks for it
// (offline.mjs posts {type: "SKIP_WAITING"} when the reader chooses Reload).
clientsClaim();
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "SKIP_WAITING") self.skipWaiting();
});

cleanupOutdatedCaches();
precacheAndRoute(self.__WB_MANIFEST, {
  // /orcus/combat/ is served from orcus/combat/index.html; the calculators keep their
  // inputs in the query (?system=...), which the static pages never depend on.
  directoryIndex: "index.html",
  ignoreURLParametersMatching: [/.*/],
});
