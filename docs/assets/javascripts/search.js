// One search across every system, answered from Pagefind's chunked index
// (hooks/postprocess/search_index.py) in Material's own search box and result list.
//
// Loaded in <head>, before Material's bundle. Material starts its search worker with
// `new Worker(<its search worker>)` and talks to it in four messages: SETUP (its index,
// emptied at build time), READY, QUERY (the words typed) and RESULT (groups of one page and
// its sections). Only that one worker is replaced, by an object answering the same
// messages; every other worker (the calculators') is the browser's own. The answers come
// from search-results.mjs (the results, the rule first) and the notes above the list from
// search-notes.mjs (a word respelt, the systems with no rule on the words): both modules,
// and Pagefind with the site's vocabulary, load when the search box is focused (or at the
// first query).
/**
 * @typedef {typeof import("./search-results.mjs")} Results
 * @typedef {typeof import("./search-notes.mjs")} Notes
 * @typedef {Awaited<ReturnType<Results["answer"]>>} Answer
 */
(() => {
  const scripts = new URL(".", /** @type {HTMLScriptElement} */ (document.currentScript).src);
  const MATERIAL_WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;
  const [SETUP, READY, QUERY, RESULT] = [0, 1, 2, 3];

  /** @type {Promise<[Results, Notes]> | null} */
  let modules = null;
  const load = () => {
    modules ??= Promise.all([
      import(new URL("search-results.mjs", scripts).href),
      import(new URL("search-notes.mjs", scripts).href),
    ])
      .then((loaded) => {
        const [results] = /** @type {[Results, Notes]} */ (loaded);
        // Pagefind and the vocabulary start loading at once, before the first key (a
        // failure of theirs is the query's to say).
        results.loadPagefind().catch(() => {});
        results.loadVocabulary();
        return /** @type {[Results, Notes]} */ (loaded);
      })
      .catch((error) => {
        // A download that failed is not kept: the next query asks for the modules again.
        modules = null;
        throw error;
      });
    return modules;
  };

  // Said in place of the count (site.css) when the search's code or index did not arrive.
  // Material shows an empty list as "No matching documents", which is not what happened:
  // the reader is told why, and what to do. A status line, as the notes of
  // search-notes.mjs are (which may be what did not arrive), gone with the next answer or
  // an emptied box.
  const UNLOADED = "search-unloaded";
  /** @param {boolean} failed */
  const sayUnloaded = (failed) => {
    const result = document.querySelector(".md-search-result");
    let note = result?.querySelector(`.${UNLOADED}`);
    if (!failed || !result) {
      note?.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.className = UNLOADED;
      note.setAttribute("role", "status");
      result.querySelector(".md-search-result__meta")?.after(note);
    }
    note.textContent = "The search could not be loaded. Check the connection, then type again.";
  };
  // No answer shown (the box emptied, or its query asks nothing): no note above it either.
  const clearNotes = () => {
    sayUnloaded(false);
    modules?.then(([, notes]) => notes.showNotes());
  };

  class PagefindSearch extends EventTarget {
    #latest = 0;

    /** @param {{type: number, data?: unknown}} message one of Material's search messages (QUERY's data: the words typed) */
    postMessage(message) {
      if (message.type === SETUP) {
        this.#reply({ type: READY });
      } else if (message.type === QUERY) {
        const asked = ++this.#latest;
        // A query typed over (the reader typed on) is dropped at its next step: its pages
        // are not fetched nor judged while the newest waits behind them.
        const superseded = () => asked !== this.#latest;
        // The empty query the theme sends as it starts asks nothing, and loads nothing.
        if (!/[\p{L}\p{N}]/u.test(/** @type {string} */ (message.data))) {
          clearNotes();
          this.#reply({ type: RESULT, data: { items: [] } });
          return;
        }
        /** @returns {Promise<[Answer, Notes]>} */
        const ask = () =>
          load().then(async ([results, notes]) => [await results.answer(/** @type {string} */ (message.data), superseded), notes]);
        // Asked once more before the reader is told the search did not arrive: a download
        // that failed (the search's modules, Pagefind's code or index; none is kept once
        // failed) is fetched anew. Chromium aborted the search's module, served by the
        // site's service worker, on a returning reader's page in a test run, as it did
        // the calculators' code (calculator-unbound.mjs): such a failure costs the reader
        // nothing. The first failure is said in the console.
        ask()
          .catch((/** @type {unknown} */ reason) => {
            if (superseded()) throw reason;
            console.warn("The search failed to load once; trying again:", String(reason));
            return ask();
          })
          .then(([answer, notes]) => {
            // An answer to a query typed over since is dropped: the newest one shows.
            if (superseded()) return;
            sayUnloaded(false);
            notes.showNotes(answer);
            this.#reply({ type: RESULT, data: { items: answer.items } });
          })
          .catch(async (error) => {
            if (superseded()) return;
            console.error("search:", error);
            this.#reply({ type: RESULT, data: { items: [] } });
            // The notes of an earlier answer go, where their module is here to take them.
            const notes = (await modules?.catch(() => null))?.[1];
            if (superseded()) return;
            notes?.showNotes();
            sayUnloaded(true);
          });
      }
    }

    terminate() {}

    /** @param {{type: number, data?: unknown}} data */
    #reply(data) {
      this.dispatchEvent(new MessageEvent("message", { data }));
    }
  }

  document.addEventListener("focusin", (event) => {
    // A failure here is said by the query that meets it.
    if (/** @type {Element} */ (event.target).matches?.(".md-search__input")) load().catch(() => {});
  });
  // An emptied search box asks nothing: the notes of the last answer go with its results.
  document.addEventListener("input", (event) => {
    const box = /** @type {HTMLInputElement} */ (event.target);
    if (box.matches?.(".md-search__input") && !box.value.trim()) clearNotes();
  });

  const BrowserWorker = window.Worker;
  window.Worker = class extends BrowserWorker {
    /**
     * @param {string | URL} url
     * @param {WorkerOptions} [options]
     */
    constructor(url, options) {
      if (MATERIAL_WORKER.test(new URL(url, location.href).pathname)) {
        return /** @type {Worker} */ (/** @type {unknown} */ (new PagefindSearch()));
      }
      super(url, options);
    }
  };
})();
