// What the page's scripts find on `window` that they do not declare themselves: Material's
// stream of pages, and the worker calculator-boot.js starts before the page's modules load.
// (A global declaration file: tsconfig.json includes it; nothing imports it.)

/** Material for MkDocs' `document$`: the page, then each new page an instant navigation
 * shows (an RxJS subject; only `subscribe` is used). */
interface MaterialPages {
  subscribe(next: (page: Document) => void): unknown;
}

interface Window {
  /** Absent where Material's bundle did not run (the page still works without it). */
  document$?: MaterialPages;
  /** The rules core's worker, as calculator-boot.js (or calculator-client.mjs) started it,
   * with the messages it sent before calculator-client.mjs listened. */
  rulesCoreWorker?: {
    worker: Worker;
    early: MessageEvent<import("../docs/assets/javascripts/calculator-worker.mjs").FromWorker>[];
  };
}

interface Navigator {
  /** The Network Information API, where the browser has it (Chromium): offline.mjs reads
   * only whether the reader asked to save data. */
  connection?: { saveData?: boolean };
}
