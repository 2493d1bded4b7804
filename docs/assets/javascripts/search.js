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
  const READERS_FIRST = 3; // on a system's page, its own best results before the others'
  const SCANNED = 2 * SHOWN; // the first results looked through for each system's best
  const BEST_SECTIONS = 2; // sections shown under a page; the rest fold into "N more"

  let pagefind = null;
  const loadPagefind = () => {
    pagefind ??= import(new URL("search/pagefind/pagefind.js", root).href).then(async (module) => {
      await module.options({ baseUrl: root.pathname, excerptLength: 24 });
      await module.init();
      // With the filters loaded, a search counts its results in each system: a system with
      // none is named as having nothing, without a search of its own.
      await module.filters();
      return module;
    });
    return pagefind;
  };

  // Every system with its label, in the navigation's order (hooks/postprocess/search_index.py).
  let systems = null;
  const loadSystems = () => {
    // Without the list (an old offline copy), results come as before, none named absent.
    systems ??= fetch(new URL("search/systems.json", root))
      .then((response) => (response.ok ? response.json() : []))
      .catch(() => []);
    return systems;
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

  // A section whose title holds every word searched is where the text sets that rule out
  // (a condition's, an action's own heading): it comes first, then the sections where the
  // words occur most. Before, "Prone" in a chapter came third, folded behind "1 more".
  const wholeWords = (words) =>
    words.split(" ").map((word) => new RegExp(`\\b${word.replace(/\W/g, "\\$&")}`, "i"));
  const titled = (section, patterns) => patterns.every((pattern) => pattern.test(section.title));

  function group(data, score, terms, patterns) {
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
      .map((section) => ({
        section,
        titled: titled(section, patterns),
        weight: section.locations?.length ?? 0,
      }))
      .sort((a, b) => b.titled - a.titled || b.weight - a.weight)
      .map(({ section }, rank) => ({
        location: siteLocation(section.url),
        title: escapeText(section.title),
        text: section.excerpt,
        score: rank < BEST_SECTIONS ? score : score / 2,
        terms,
      }));
    return [page, ...sections];
  }

  // A result's page data, fetched once per result (its fragment file).
  const fetched = new WeakMap();
  const dataOf = (result) => {
    if (!fetched.has(result)) fetched.set(result, result.data());
    return fetched.get(result);
  };

  async function answer(query) {
    const words = wordsOf(query);
    if (!words) return { items: [], absent: [] };
    const [pagefind, listed] = await Promise.all([loadPagefind(), loadSystems()]);
    const reading = readingFolder();
    const [all, own] = await Promise.all([
      pagefind.search(words),
      reading ? pagefind.search(words, { filters: { system: reading } }) : null,
    ]);
    const counts = all.filters?.system ?? {};
    const matched = listed.filter(({ slug }) => counts[slug] > 0);
    const absent = listed.filter(({ slug }) => !(counts[slug] > 0));
    // Each system's best result leads the list, so no system's answer is left below
    // another's many pages: on a system's page after its own READERS_FIRST best, on a page
    // outside any system first. The best of each is found among the first results, in
    // rank order; a system not among them is searched alone, while the list has room.
    const readers = own?.results ?? [];
    const lead = readers.slice(0, READERS_FIRST);
    const room = Math.max(0, SHOWN - lead.length);
    const wanted = new Set(matched.map(({ slug }) => slug).filter((slug) => slug !== reading));
    const bests = [];
    for (let from = 0; from < SCANNED && wanted.size && bests.length < room; from += SHOWN) {
      const batch = all.results.slice(from, from + SHOWN);
      const pages = await Promise.all(batch.map(dataOf));
      batch.forEach((result, i) => {
        if (wanted.delete(pages[i].filters?.system?.[0])) bests.push(result);
      });
    }
    const alone = [...wanted].slice(0, room - bests.length);
    const found = await Promise.all(
      alone.map((slug) => pagefind.search(words, { filters: { system: slug } })),
    );
    bests.push(...found.map((answer) => answer.results[0]).filter(Boolean));
    const rank = new Map(all.results.map((result, i) => [result.id, i]));
    const rankOf = (result) => rank.get(result.id) ?? Infinity;
    bests.sort((a, b) => rankOf(a) - rankOf(b));
    lead.push(...bests.slice(0, room));
    // Then the reader's system's other results, then the others' (at least OTHERS of
    // them, so a system's page still shows what the other systems say).
    const shown = new Set(lead.map((result) => result.id));
    const first = readers.filter((result) => !shown.has(result.id));
    first.forEach((result) => shown.add(result.id));
    const others = all.results.filter((result) => !shown.has(result.id));
    const left = SHOWN - lead.length;
    const kept = first.slice(0, Math.max(0, left - OTHERS, left - others.length));
    const results = [...lead, ...kept, ...others].slice(0, SHOWN);
    const data = await Promise.all(results.map(dataOf));
    const terms = Object.fromEntries(words.split(" ").map((word) => [word, true]));
    const patterns = wholeWords(words);
    return {
      items: data.map((d, i) => group(d, data.length - i, terms, patterns)),
      absent: absent.map(({ label }) => label),
      words,
    };
  }

  // "3d6 Combat: nothing on “prone”", under the count: which systems the results leave out
  // because their text does not have the words. Labels and words are set as text.
  const ABSENT = "search-absent";
  function showAbsent({ absent = [], words = "" } = {}) {
    const result = document.querySelector(".md-search-result");
    if (!result) return;
    let note = result.querySelector(`.${ABSENT}`);
    if (!absent.length) {
      note?.remove();
      return;
    }
    if (!note) {
      note = document.createElement("ul");
      note.className = ABSENT;
      result.querySelector(".md-search-result__meta")?.after(note);
    }
    note.replaceChildren(
      ...absent.map((label) => {
        const line = document.createElement("li");
        line.textContent = `${label}: nothing on “${words}”`;
        return line;
      }),
    );
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
            if (asked !== this.#latest) return;
            showAbsent(result);
            this.#reply({ type: RESULT, data: { items: result.items } });
          },
          (error) => {
            console.error("search:", error);
            if (asked !== this.#latest) return;
            showAbsent();
            this.#reply({ type: RESULT, data: { items: [] } });
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
  // An emptied search box asks nothing: the note of the last answer goes with its results.
  document.addEventListener("input", (event) => {
    if (event.target.matches?.(".md-search__input") && !event.target.value.trim()) showAbsent();
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
