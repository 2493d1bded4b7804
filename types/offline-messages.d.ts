// The messages between the page (docs/assets/javascripts/offline.mjs) and the service
// worker (hooks/package/service_worker_template.mjs), declared once for both.

/** What the page asks the service worker (with a MessageChannel port for the reply). */
export type OfflineRequest =
  | { type: "STATUS"; page: string; keep: boolean; pythonUsed: boolean }
  | { type: "KEEP_PYTHON"; page: string; keep: boolean; pythonUsed: boolean }
  | { type: "SKIP_WAITING" };

/** What is stored for offline use, as the service worker replies to STATUS and KEEP_PYTHON. */
export interface OfflineStatus {
  /** The site's shell (styles, scripts, search) is stored. */
  shell: boolean;
  /** The pages of the page's own group are stored (null: a page of no group). */
  group: boolean | null;
  /** The pages in all. */
  pages: number;
  /** The pages stored. */
  storedPages: number;
  /** The calculators' Python is stored. */
  python: boolean;
  /** The size of the calculators' Python, as served. */
  pythonBytes: number;
}

/** The reply when the work failed. */
export interface OfflineFailure {
  error: string;
}

/** Every reply the page reads. */
export type OfflineReply = OfflineStatus | OfflineFailure;
