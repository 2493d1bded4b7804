// One search across every system, answered from Pagefind's chunked index
// (hooks/postprocess/search_index.py) in Material's own search box and result list.
//
// Loaded in <head>, before Material's bundle. Material starts its search worker with
// `new Worker(<its search worker>)` and talks to it in four messages: SETUP (its index,
// emptied at build time), READY, QUERY (the words typed) and RESULT (groups of one page and
// its sections). Only that one worker is replaced, by an object answering the same
// messages from Pagefind; every other worker (the calculators') is the browser's own.
// Pagefind is loaded on the first query, and fetches only the index chunks of its words.
(() => {
  const root = new URL("../../", document.currentScript.src);
  const MATERIAL_WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;
  const [SETUP, READY, QUERY, RESULT] = [0, 1, 2, 3];
  const SHOWN = 20; // results whose excerpts are fetched; Material lists 10 at first
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

  // The system of the page being read, when it is a system's page.
  const readingSystem = (systems) => {
    const first = location.pathname.slice(root.pathname.length).split("/")[0];
    return first in systems ? first : null;
  };

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
    const found = await (await loadPagefind()).search(words);
    if (found === null) return null; // a newer query superseded this one
    const systems = await (await loadPagefind()).filters().then((f) => f.system ?? {});
    const reading = readingSystem(systems);
    const data = await Promise.all(found.results.slice(0, SHOWN).map((r) => r.data()));
    // The reader's system first, each part in Pagefind's order of relevance.
    const ranked = [
      ...data.filter((d) => reading && d.filters?.system?.[0] === reading),
      ...data.filter((d) => !(reading && d.filters?.system?.[0] === reading)),
    ];
    const terms = Object.fromEntries(words.split(" ").map((word) => [word, true]));
    return { items: ranked.map((d, i) => group(d, ranked.length - i, terms)) };
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
            if (result !== null && asked === this.#latest) {
              this.#reply({ type: RESULT, data: result });
            }
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
