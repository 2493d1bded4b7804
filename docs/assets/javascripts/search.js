// One search across every system, answered from Pagefind's chunked index
// (hooks/postprocess/search_index.py) in Material's own search box and result list.
//
// Loaded in <head>, before Material's bundle. Material starts its search worker with
// `new Worker(<its search worker>)` and talks to it in four messages: SETUP (its index,
// emptied at build time), READY, QUERY (the words typed) and RESULT (groups of one page and
// its sections). Only that one worker is replaced, by an object answering the same
// messages from Pagefind; every other worker (the calculators') is the browser's own.
// Pagefind loads when the search box is focused (or at the first query), and fetches only
// the index chunks of the words searched.
(() => {
  const root = new URL("../../", document.currentScript.src);
  const MATERIAL_WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;
  const [SETUP, READY, QUERY, RESULT] = [0, 1, 2, 3];
  // The best results, each page's excerpts fetched: Material lists ten at first, and says
  // "Top 10 matches" (overrides/partials/languages/custom.html), not the number found.
  const SHOWN = 10;
  const OTHERS = 3;
  const BEST_SECTIONS = 2; // sections shown under a page; the rest fold into "N more"

  let pagefind = null;
  const loadPagefind = () => {
    pagefind ??= import(new URL("search/pagefind/pagefind.js", root).href).then(async (module) => {
      await module.options({ baseUrl: root.pathname, excerptLength: 24 });
      await module.init();
      return module;
    });
    return pagefind;
  };

  const escapeText = (text) =>
    String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  // Material's query language ("prone*", "+cover", "term~1"): only the words matter here.
  const wordsOf = (query) =>
    query
      .split(/\s+/)
      .map((term) => term.replace(/^[+-]/, "").replace(/[*]+$/, "").replace(/[~^]\d*$/, ""))
      .filter(Boolean)
      .join(" ");

  // The first folder of the page being read: on a system's page its slug, which is what
  // the system filter of that system's pages holds.
  const readingFolder = () => location.pathname.slice(root.pathname.length).split("/")[0];

  const siteLocation = (url) =>
    url.startsWith(root.pathname) ? url.slice(root.pathname.length) : url.replace(/^\//, "");

  function group(data, score, terms) {
    const label = data.meta.system ? [escapeText(data.meta.system)] : undefined;
    const page = {
      location: siteLocation(data.url),
      title: escapeText(data.meta.title ?? data.url),
      text: data.excerpt,
      tags: label,
      score,
      terms,
    };
    const sections = (data.sub_results ?? [])
      .filter((section) => section.url.includes("#"))
      .map((section) => ({ section, weight: section.locations?.length ?? 0 }))
      .sort((a, b) => b.weight - a.weight)
      .map(({ section }, rank) => ({
        location: siteLocation(section.url),
        title: escapeText(section.title),
        text: section.excerpt,
        score: rank < BEST_SECTIONS ? score : score / 2,
        terms,
      }));
    return [page, ...sections];
  }

  async function answer(query) {
    const words = wordsOf(query);
    if (!words) return { items: [] };
    const pagefind = await loadPagefind();
    // The reader's system first: its own best results, then the others' (at least
    // OTHERS of them, so a system's page still shows what the other systems say).
    const reading = readingFolder();
    const [all, own] = await Promise.all([
      pagefind.search(words),
      reading ? pagefind.search(words, { filters: { system: reading } }) : null,
    ]);
    const first = (own?.results ?? []).slice(0, SHOWN);
    const shown = new Set(first.map((result) => result.id));
    const others = all.results.filter((result) => !shown.has(result.id));
    const kept = first.slice(0, Math.max(SHOWN - OTHERS, SHOWN - others.length));
    const results = [...kept, ...others].slice(0, SHOWN);
    const data = await Promise.all(results.map((result) => result.data()));
    const terms = Object.fromEntries(words.split(" ").map((word) => [word, true]));
    return { items: data.map((d, i) => group(d, data.length - i, terms)) };
  }

  class PagefindSearch extends EventTarget {
    #latest = 0;

    postMessage(message) {
      if (message.type === SETUP) {
        this.#reply({ type: READY });
      } else if (message.type === QUERY) {
        const asked = ++this.#latest;
        answer(message.data).then(
          (result) => {
            // An answer to a query typed over since is dropped: the newest one shows.
            if (asked === this.#latest) this.#reply({ type: RESULT, data: result });
          },
          (error) => {
            console.error("search:", error);
            if (asked === this.#latest) this.#reply({ type: RESULT, data: { items: [] } });
          },
        );
      }
    }

    terminate() {}

    #reply(data) {
      this.dispatchEvent(new MessageEvent("message", { data }));
    }
  }

  // Pagefind starts loading when the search box is focused, before the first key.
  document.addEventListener("focusin", (event) => {
    if (event.target.matches?.(".md-search__input")) loadPagefind();
  });

  const BrowserWorker = window.Worker;
  window.Worker = class extends BrowserWorker {
    constructor(url, options) {
      if (MATERIAL_WORKER.test(new URL(url, location.href).pathname)) {
        return new PagefindSearch();
      }
      super(url, options);
    }
  };
})();
