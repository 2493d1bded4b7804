// What the service worker's template (hooks/package/service_worker_template.mjs) finds in
// its global scope, `self`: a service worker's (lib "webworker" declares `self` as any
// worker's scope, so its service worker's members are merged in here), and the build's
// file list, which hooks/package/offline.py writes in place of `self.__OFFLINE_MANIFEST`
// (offline_manifest() there gives its shape). A global declaration file: the template's
// project (hooks/package/tsconfig.json) includes it; nothing imports it.

/** One part of the site, stored in a cache of its own. */
interface OfflinePart {
  /** The cache's name, less the site's prefix: named after a hash of its files. */
  name: string;
  /** Its files, as paths from the site root. */
  files: string[];
  /** The size of its files as served, in bytes. */
  bytes: number;
}

interface OfflineManifest {
  /** The page shown for an address the site does not have (404.html). */
  fallback: string;
  /** The calculators' folder: the group KEEP_PYTHON stores with Python. */
  calculators: string;
  shell: OfflinePart;
  /** Pyodide and the rules core, with each file's SHA-256 as `integrity` takes it, by path. */
  python: OfflinePart & { integrity: Record<string, string> };
  /** One part per top folder (a system, the calculators, Compare), by folder. */
  groups: Record<string, OfflinePart>;
}

interface WorkerGlobalScope {
  __OFFLINE_MANIFEST: OfflineManifest;
  readonly registration: ServiceWorkerRegistration;
  readonly clients: Clients;
  skipWaiting(): Promise<void>;
  addEventListener<K extends keyof ServiceWorkerGlobalScopeEventMap>(
    type: K,
    listener: (this: WorkerGlobalScope, event: ServiceWorkerGlobalScopeEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
}
