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
/**
 * @typedef {import("../../../types/pagefind-browser").Pagefind} Pagefind
 * @typedef {import("../../../types/pagefind-browser").PagefindData} PagefindData
 * @typedef {import("../../../types/pagefind-browser").PagefindResult} PagefindResult
 * @typedef {import("../../../types/pagefind-browser").PagefindSubResult} PagefindSubResult
 * @typedef {{slug: string, label: string}} ListedSystem A system of search/systems.json.
 * @typedef {object} Query What is asked: the words typed, a result's place among all of
 *   them, whether it was typed over, and the pages of data it fetched.
 * @property {string[]} typed
 * @property {(result: PagefindResult) => number} rank
 * @property {() => boolean} typedOver
 * @property {Map<string, Promise<PagefindData>>} pages
 * @typedef {object} Standing How near a section (or a page's best) is to the words.
 * @property {boolean} named
 * @property {number} exact
 * @property {number} coverage
 * @property {number} level
 * @typedef {Standing & {section: PagefindSubResult, weight: number, whole: boolean}} Section
 * @typedef {Standing & {data: PagefindData, sections: Section[], standing: number}} Judgement
 * @typedef {Judgement & {result: PagefindResult, rank: number}} Judged
 * @typedef {{location: string, title: string, text: string, tags?: string[], score: number, terms: Record<string, boolean>}} Item
 *   One line of Material's result list.
 * @typedef {{items: Item[][], absent: string[], words?: string}} Answer
 */
(() => {
  const root = new URL("../../", /** @type {HTMLScriptElement} */ (document.currentScript).src);
  const MATERIAL_WORKER = /\/assets\/javascripts\/workers\/search\.[0-9a-f]+\.min\.js$/;
  const [SETUP, READY, QUERY, RESULT] = [0, 1, 2, 3];
  // The best results, each page's excerpts fetched: Material lists ten at first, and says
  // "Top 10 matches" (overrides/partials/languages/custom.html), not the number found.
  const SHOWN = 10;
  const OTHERS = 3;
  const READERS_FIRST = 3; // on a system's page, its own best results before the others'
  const BEST_SECTIONS = 2; // sections shown under a page; the rest fold into "N more"

  /** @type {Promise<Pagefind> | null} */
  let pagefind = null;
  const loadPagefind = () => {
    pagefind ??= import(new URL("search/pagefind/pagefind.js", root).href).then(async (/** @type {Pagefind} */ module) => {
      // Pagefind searches the pages' metadata too: a system's label ("3d6 Combat") and a
      // chapter's kind ("rules") are no words of the page, and rank nothing.
      await module.options({
        baseUrl: root.pathname,
        excerptLength: 24,
        ranking: { metaWeights: { system: 0, kind: 0 } },
      });
      await module.init();
      // With the filters loaded, a search counts its results in each system: a system with
      // none is named as having nothing, without a search of its own.
      await module.filters();
      return module;
    });
    return pagefind;
  };

  // Every system with its label, in the navigation's order (hooks/postprocess/search_index.py).
  /** @type {Promise<ListedSystem[]> | null} */
  let systems = null;
  const loadSystems = () => {
    // Without the list (an old offline copy), results come as before, none named absent.
    systems ??= fetch(new URL("search/systems.json", root))
      .then((response) => (response.ok ? response.json() : []))
      .catch(() => []);
    return systems;
  };

  const escapeText = (/** @type {string} */ text) =>
    String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  // Material's query language ("prone*", "+cover", "term~1"): only the words matter here.
  const wordsOf = (/** @type {string} */ query) =>
    query
      .split(/\s+/)
      .map((term) => term.replace(/^[+-]/, "").replace(/[*]+$/, "").replace(/[~^]\d*$/, ""))
      .filter(Boolean)
      .join(" ");

  // ---------------------------------------------------------------- a word's forms
  // The index has no stemmer (search_index.py): a plural or inflection typed finds the
  // rule through its lemma, the part its forms share ("grappled", "grappling", "grapples":
  // "grappl"). Only endings are taken off, and none that would leave less than three
  // letters: "dying" stays "dying" and "die" "die", so neither finds the other; "natural"
  // keeps its "al" and so is never "nature".
  const VOWEL = /[aeiouy]/;
  const undouble = (/** @type {string} */ stem) => (/([^aeioulsz])\1$/.test(stem) ? stem.slice(0, -1) : stem);
  /** @type {Map<string, string>} */
  const lemmas = new Map();
  /**
   * @param {string} word
   * @returns {string}
   */
  function lemma(word) {
    if (lemmas.has(word)) return /** @type {string} */ (lemmas.get(word));
    let w = word.toLowerCase();
    const cut = (/** @type {number} */ letters) => w.slice(0, w.length - letters);
    if (w.endsWith("sses")) w = cut(2);
    else if (/ie[sd]$/.test(w)) w = w.length > 4 ? cut(3) + "i" : cut(1);
    else if (/ed$/.test(w) && cut(2).length >= 3 && VOWEL.test(cut(2))) w = undouble(cut(2));
    else if (/ing$/.test(w) && cut(3).length >= 3 && VOWEL.test(cut(3))) w = undouble(cut(3));
    else if (/(ss|x|ch|sh|z)es$/.test(w)) w = cut(2);
    else if (/[^su]s$/.test(w) && !/is$/.test(w) && w.length > 3) w = cut(1);
    if (/e$/.test(w) && w.length > 3) w = w.slice(0, -1);
    else if (/[^aeiou]y$/.test(w) && w.length > 2) w = w.slice(0, -1) + "i";
    lemmas.set(word, w);
    return w;
  }
  // What the index is asked for: the lemma, less the "i" of a "y" ("enemi": "enem", which
  // "enemy" and "enemies" both start with). Pagefind matches it as a word's beginning.
  const prefixOf = (/** @type {string} */ word) => {
    const stem = lemma(word).replace(/(?<=...)i$/, "");
    return /^[\p{L}\p{N}]+$/u.test(stem) ? stem : word.toLowerCase();
  };
  // A word of the page is one the reader asked for when it starts with what they typed
  // ("crit": "critical") or is a form of it ("grapples": "grappled"); another word that
  // merely starts with the same letters ("savvy" for "saves") is not.
  const partsOf = (/** @type {string} */ text) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const isFormOf = (/** @type {string} */ part, /** @type {string} */ typed) => part.startsWith(typed) || lemma(part) === lemma(typed);
  // A word as typed, in the singular or the plural: "attacks" for "Opportunity Attack", not
  // "grappled" for "grappling".
  const singular = (/** @type {string} */ word) =>
    word.replace(/ies$/, "y").replace(/(ss|x|ch|sh|z)es$/, "$1").replace(/([^su])s$/, "$1");
  // How a heading holds a word typed: 2 as typed, 1 as the start of a longer word that is
  // not a form of it ("Critical" for "crit"), 0 as another form only.
  const asTyped = (/** @type {string[]} */ title, /** @type {string} */ typed) =>
    Math.max(
      ...title.map((part) =>
        singular(part) === singular(typed) ? 2
        : part.startsWith(typed) && lemma(part) !== lemma(typed) ? 1
        : 0,
      ),
    );
  const holds = (/** @type {string} */ text, /** @type {string} */ typed) => partsOf(text).some((part) => isFormOf(part, typed));

  // The first folder of the page being read: on a system's page its slug, which is what
  // the system filter of that system's pages holds.
  const readingFolder = () => location.pathname.slice(root.pathname.length).split("/")[0];

  const siteLocation = (/** @type {string} */ url) =>
    url.startsWith(root.pathname) ? url.slice(root.pathname.length) : url.replace(/^\//, "");

  // ---------------------------------------------------------------- the rule first
  // A result is a page with its sections; each is judged for the words typed:
  // - kept only where the page holds a form of every word typed (the index is asked for
  //   beginnings: "sav" finds "savvy" too, which no one asked for);
  // - a section whose heading holds them all is where the text sets that rule out (a
  //   condition's, an action's own heading). The closer the heading is to the words (all
  //   of "Prone" rather than half of "Being Prone"), and the higher it stands (a chapter's
  //   "Initiative" before the one under Dexterity), the better;
  // - a section of the text itself (a chapter: meta kind "rules") comes before a page
  //   that restates it, whose entries only name the rule (the Terms list, the GM screen,
  //   a Compare page); then the sections that merely mention the words.
  // Within the same standing, Pagefind's own order (its rank) decides.
  const MINOR = new Set(["a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "your"]);
  const HEADING = /^h([1-6])$/;
  const NOT_A_HEADING = 7; // an entry titled by its term (the Terms list)

  // A page's words, at the places Pagefind's locations count (split once a visit: the same
  // pages answer query after query).
  /** @type {Map<string, string[]>} */
  const wordsOfPage = new Map();
  const pageWords = (/** @type {PagefindData} */ data) => {
    if (!wordsOfPage.has(data.url)) wordsOfPage.set(data.url, data.content.split(/\s+/));
    return /** @type {string[]} */ (wordsOfPage.get(data.url));
  };

  /**
   * @param {PagefindData} data
   * @param {string[]} typed
   * @returns {Judgement | null}
   */
  function judge(data, typed) {
    const words = pageWords(data);
    // Which of the words typed each place holds, looked at once.
    /** @type {Map<number, string[]>} */
    const held = new Map();
    for (const at of data.locations) {
      held.set(at, typed.filter((word) => holds(words[at] ?? "", word)));
    }
    const asked = (/** @type {number} */ location) => /** @type {number} */ (held.get(location)?.length) > 0;
    if (!typed.every((word) => [...held.values()].some((found) => found.includes(word)))) {
      return null;
    }
    const rules = data.meta?.kind === "rules";
    const sections = (data.sub_results ?? [])
      .filter((section) => section.url.includes("#"))
      .map((section) => {
        const weight = (section.locations ?? []).filter(asked).length;
        // Every word typed in the section, not some of them (in a page that holds them all).
        const whole = typed.every((word) =>
          (section.locations ?? []).some((at) => held.get(at)?.includes(word)),
        );
        const title = partsOf(section.title ?? "");
        const named = typed.every((word) => title.some((part) => isFormOf(part, word)));
        // As typed: "Grappling" for "grappling", where "Grappled" is another form of it;
        // "Arc" before "Archer" for "arc".
        const exact = named ? typed.reduce((sum, word) => sum + asTyped(title, word), 0) : 0;
        // How much of the heading the words are; a note in brackets, "Grapple (standard
        // action)", is not the rule's name.
        const major = partsOf((section.title ?? "").replace(/\([^)]*\)/g, " ")).filter((part) => !MINOR.has(part));
        const covered = major.filter((part) => typed.some((word) => isFormOf(part, word)));
        const coverage = named ? covered.length / (major.length || 1) : 0;
        const level = named ? Number(HEADING.exec(section.anchor?.element ?? "")?.[1] ?? NOT_A_HEADING) : NOT_A_HEADING;
        return { section, weight, whole, named, exact, coverage, level };
      })
      .filter(({ weight, named }) => weight > 0 || named)
      .sort((a, b) => nearer(a, b) || +b.whole - +a.whole || b.weight - a.weight);
    const best = sections[0] ?? { named: false, exact: 0, coverage: 0, level: NOT_A_HEADING };
    // 0: a section of the text names the words; 1: an entry elsewhere names them;
    // 2: the text mentions them; 3: a page elsewhere mentions them.
    return { data, sections, ...best, standing: (best.named ? 0 : 2) + (rules ? 0 : 1) };
  }

  // Which of two sections names the words more nearly: named, more nearly as typed, more
  // of its heading, a higher heading.
  // (A boolean counts as 1 or 0.)
  /** @type {(a: Standing, b: Standing) => number} */
  const nearer = (a, b) =>
    +b.named - +a.named || b.exact - a.exact || b.coverage - a.coverage || a.level - b.level;
  /** @type {(a: Judged, b: Judged) => number} */
  const better = (a, b) => a.standing - b.standing || nearer(a, b) || a.rank - b.rank;

  /**
   * @param {Judged} judged
   * @param {number} score
   * @param {Record<string, boolean>} terms
   * @returns {Item[]}
   */
  function group({ data, sections }, score, terms) {
    const label = data.meta.system ? [escapeText(data.meta.system)] : undefined;
    const page = {
      location: siteLocation(data.url),
      title: escapeText(data.meta.title ?? data.url),
      text: data.excerpt,
      tags: label,
      score,
      terms,
    };
    return [
      page,
      ...sections.map(({ section }, rank) => ({
        location: siteLocation(section.url),
        title: escapeText(section.title),
        text: section.excerpt,
        score: rank < BEST_SECTIONS ? score : score / 2,
        terms,
      })),
    ];
  }

  // A result's page data: its fragment file (which Pagefind fetches once a visit) with this
  // query's locations and excerpts, asked once a query (its searches of every system and
  // of one system find the same pages). Pagefind gives every search of a page the same
  // object and writes each search's locations into it: it is copied as it comes, so a
  // query typed over this one does not change it.
  const dataOf = (/** @type {PagefindResult} */ result, /** @type {Query} */ query) => {
    if (!query.pages.has(result.id)) {
      query.pages.set(result.id, result.data().then((data) => ({ ...data })));
    }
    return /** @type {Promise<PagefindData>} */ (query.pages.get(result.id));
  };

  // Thrown where a query was typed over: its answer stops there.
  class Superseded extends Error {}

  // The results of a batch that hold the words, judged. A query is what is asked: the
  // words `typed`, `rank` (a result's place among all of them), `typedOver()` and the
  // `pages` of data it fetched.
  /**
   * @param {PagefindResult[]} batch
   * @param {Query} query
   * @returns {Promise<Judged[]>}
   */
  async function judgeAll(batch, query) {
    if (query.typedOver()) throw new Superseded();
    const pages = await Promise.all(batch.map((result) => dataOf(result, query)));
    if (query.typedOver()) throw new Superseded();
    return batch
      .map((result, i) => ({ result, judgement: judge(pages[i], query.typed) }))
      .filter(({ judgement }) => judgement)
      .map(({ result, judgement }) => ({ .../** @type {Judgement} */ (judgement), result, rank: query.rank(result) }));
  }

  // The first `keep` results among `results` that hold the words, judged, looked through in
  // order SHOWN at a time and no further than LOOKED_AT.
  const LOOKED_AT = 5 * SHOWN;
  /**
   * @param {PagefindResult[]} results
   * @param {Query} query
   * @param {number} [keep]
   */
  async function judged(results, query, keep = SHOWN) {
    /** @type {Judged[]} */
    const kept = [];
    for (let from = 0; from < Math.min(results.length, LOOKED_AT) && kept.length < keep; from += SHOWN) {
      kept.push(...(await judgeAll(results.slice(from, from + SHOWN), query)));
    }
    return kept.sort(better);
  }

  // A system's best result: among its first results as Pagefind ranks them, two at a time,
  // until one is a section of the text named by the very words typed, or BEST_AMONG have
  // been judged (Pagefind ranks the best fourth at the furthest, over the queries of
  // tests/test_search_relevance.py); on while none holds the words.
  const BEST_AMONG = 4;
  const perfect = (/** @type {Judgement} */ best, /** @type {string[]} */ typed) =>
    best.standing === 0 && best.exact === 2 * typed.length && best.coverage === 1;
  /**
   * @param {PagefindResult[]} results
   * @param {Query} query
   * @returns {Promise<Judged | undefined>}
   */
  async function bestOf(results, query) {
    /** @type {Judged[]} */
    const kept = [];
    for (let from = 0; from < Math.min(results.length, LOOKED_AT); from += 2) {
      kept.push(...(await judgeAll(results.slice(from, from + 2), query)));
      kept.sort(better);
      if (kept.length && (from + 2 >= BEST_AMONG || perfect(kept[0], query.typed))) break;
    }
    return kept[0];
  }

  /**
   * @param {string} query
   * @param {() => boolean} typedOver
   * @returns {Promise<Answer>}
   */
  async function answer(query, typedOver) {
    // Words as the index has them: "two-weapon" is "two" and "weapon".
    const typed = [...new Set(partsOf(wordsOf(query)))];
    if (!typed.length) return { items: [], absent: [] };
    const words = typed.map(prefixOf).join(" ");
    const [pagefind, listed] = await Promise.all([loadPagefind(), loadSystems()]);
    const reading = readingFolder();
    const [all, own] = await Promise.all([
      pagefind.search(words),
      reading ? pagefind.search(words, { filters: { system: reading } }) : null,
    ]);
    if (typedOver()) throw new Superseded();
    const order = new Map(all.results.map((result, i) => [result.id, i]));
    const rank = (/** @type {PagefindResult} */ result) => order.get(result.id) ?? Infinity;
    /** @type {Query} */
    const asked = { typed, rank, typedOver, pages: new Map() };
    const counts = all.filters?.system ?? {};
    const matched = new Set(listed.filter(({ slug }) => counts[slug] > 0).map(({ slug }) => slug));
    // The reader's system's best first (READERS_FIRST of them), then each other system's
    // best, so no system's answer is left below another's many pages: on a page outside
    // any system, the systems' bests lead. Each system's best is judged among its own
    // first results; the systems among the first results of all come first, then the
    // others in the navigation's order, while the list has room.
    const [readers, scanned] = await Promise.all([
      own ? judged(own.results, asked) : [],
      judged(all.results, asked),
    ]);
    if (reading && !readers.length) matched.delete(reading);
    const lead = readers.slice(0, READERS_FIRST);
    const room = Math.max(0, SHOWN - lead.length);
    const systemOf = (/** @type {Judged} */ result) => /** @type {string} */ (result.data.filters?.system?.[0]);
    const others = [...matched].filter((slug) => slug !== reading);
    const first = new Set(scanned.map(systemOf).filter((slug) => others.includes(slug)));
    const alone = [...first, ...others.filter((slug) => !first.has(slug))].slice(0, room);
    if (typedOver()) throw new Superseded();
    // A system whose first results already hold a section of its text named by the very
    // words typed has its best: only the others are searched alone.
    /** @type {Map<string, Judged>} */
    const found = new Map();
    for (const result of scanned) {
      const slug = systemOf(result);
      if (!found.has(slug) && perfect(result, typed)) found.set(slug, result);
    }
    const bests = await Promise.all(
      alone.map(
        (slug) =>
          found.get(slug) ??
          pagefind
            .search(words, { filters: { system: slug } })
            .then((answer) => bestOf(answer.results, asked)),
      ),
    );
    alone.forEach((slug, i) => {
      // The index's beginnings only ("savvy" for "saves"): no form of the words there.
      if (!bests[i]) matched.delete(slug);
    });
    lead.push(.../** @type {Judged[]} */ (bests.filter(Boolean)).sort(better));
    // Then the reader's system's other results, then the others' (at least OTHERS of
    // them, so a system's page still shows what the other systems say).
    const shown = new Set(lead.map(({ result }) => result.id));
    const more = readers.filter(({ result }) => !shown.has(result.id));
    more.forEach(({ result }) => shown.add(result.id));
    const rest = scanned.filter(({ result }) => !shown.has(result.id));
    const left = SHOWN - lead.length;
    const kept = more.slice(0, Math.max(0, left - OTHERS, left - rest.length));
    const results = [...lead, ...kept, ...rest].slice(0, SHOWN);
    // Marked on the page opened, as Material does: the beginnings asked for, so "grappl"
    // marks "Grappling" for "grappled".
    const terms = Object.fromEntries(words.split(" ").map((word) => [word, true]));
    return {
      items: results.map((result, i) => group(result, results.length - i, terms)),
      absent: listed.filter(({ slug }) => !matched.has(slug)).map(({ label }) => label),
      words: typed.join(" "),
    };
  }

  // "3d6 Combat: nothing on “prone”", under the count: which systems the results leave out
  // because their text does not have the words. Labels and words are set as text.
  const ABSENT = "search-absent";
  /** @param {Partial<Answer>} [answer] */
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

    /** @param {{type: number, data?: unknown}} message one of Material's search messages (QUERY's data: the words typed) */
    postMessage(message) {
      if (message.type === SETUP) {
        this.#reply({ type: READY });
      } else if (message.type === QUERY) {
        const asked = ++this.#latest;
        // A query typed over (the reader typed on) is dropped at its next step: its pages
        // are not fetched nor judged while the newest waits behind them.
        const superseded = () => asked !== this.#latest;
        answer(/** @type {string} */ (message.data), superseded).then(
          (result) => {
            // An answer to a query typed over since is dropped: the newest one shows.
            if (superseded()) return;
            showAbsent(result);
            this.#reply({ type: RESULT, data: { items: result.items } });
          },
          (error) => {
            if (superseded()) return;
            console.error("search:", error);
            showAbsent();
            this.#reply({ type: RESULT, data: { items: [] } });
          },
        );
      }
    }

    terminate() {}

    /** @param {{type: number, data?: unknown}} data */
    #reply(data) {
      this.dispatchEvent(new MessageEvent("message", { data }));
    }
  }

  // Pagefind starts loading when the search box is focused, before the first key.
  document.addEventListener("focusin", (event) => {
    if (/** @type {Element} */ (event.target).matches?.(".md-search__input")) loadPagefind();
  });
  // An emptied search box asks nothing: the note of the last answer goes with its results.
  document.addEventListener("input", (event) => {
    const box = /** @type {HTMLInputElement} */ (event.target);
    if (box.matches?.(".md-search__input") && !box.value.trim()) showAbsent();
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
