// The answer to a search: the results of every system for the words typed, the rule
// first and the reader's system first, from Pagefind's chunked index
// (hooks/postprocess/search_index.py). search.js, which answers Material's search box,
// loads this module when the box is focused (or at the first query), and Pagefind with
// it; Pagefind fetches only the index chunks of the words searched.
import { askingWords, asTyped, holds, isFormOf, partsOf, prefixOf, Vocabulary } from "./search-words.mjs";
/**
 * @typedef {import("../../../types/pagefind-browser").Pagefind} Pagefind
 * @typedef {import("../../../types/pagefind-browser").PagefindData} PagefindData
 * @typedef {import("../../../types/pagefind-browser").PagefindResult} PagefindResult
 * @typedef {import("../../../types/pagefind-browser").PagefindSubResult} PagefindSubResult
 * @typedef {{slug: string, label: string}} ListedSystem A system of search/systems.json.
 * @typedef {object} Query What is asked: the words searched, a result's place among all
 *   of them, whether it was typed over, and the pages of data it fetched.
 * @property {string[]} typed
 * @property {(result: PagefindResult) => number} rank
 * @property {() => boolean} typedOver
 * @property {Map<string, Promise<PagefindData>>} pages
 * @typedef {object} Standing How near a section (or a page's best) is to the words.
 * @property {boolean} named
 * @property {number} exact
 * @property {number} coverage
 * @property {number} level
 * @property {boolean} whole
 * @property {number} naming
 * @typedef {Standing & {section: PagefindSubResult, weight: number, order: number}} Section
 * @typedef {Standing & {data: PagefindData, sections: Section[], standing: number, restates: boolean}} Judgement
 * @typedef {Judgement & {result: PagefindResult, rank: number}} Judged
 * @typedef {{location: string, title: string, text: string, tags?: string[], score: number, terms: Record<string, boolean>}} Item
 *   One line of Material's result list.
 * @typedef {{label: string, mentioned: boolean}} Absent A system without a rule on the
 *   words: mentioned where some page of it has them, but no section of its text.
 * @typedef {object} Answer
 * @property {Item[][]} items Material's result groups: a page, then its sections.
 * @property {Absent[]} absent
 * @property {string} words The words searched, as the notes say them.
 * @property {[string, string][]} respelt Each word typed that the site does not hold,
 *   with the site's nearest word, searched in its place.
 * @property {[string, string][]} unspelt Each word typed in quotes that the site does not
 *   hold, searched as typed, with the site's nearest word.
 * @property {string} typedText The words typed, as typed.
 */

const root = new URL("../../", import.meta.url);
// The best results, each page's excerpts fetched: Material lists ten at first, and says
// "Top 10 matches" (overrides/partials/languages/custom.html), not the number found.
const SHOWN = 10;
const OTHERS = 3;
const READERS_FIRST = 3; // on a system's page, its own best results before the others'
const BEST_SECTIONS = 2; // sections shown under a page; the rest fold into "N more"

/** @type {Promise<Pagefind> | null} */
let pagefind = null;
export const loadPagefind = () => {
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
  }).catch((/** @type {unknown} */ error) => {
    // Pagefind that did not arrive (its code, or the index it starts with) is not kept:
    // the next query asks for it again.
    pagefind = null;
    throw error;
  });
  return pagefind;
};

/**
 * @template T
 * @param {string} path
 * @param {T} otherwise what an old offline copy without the file answers with
 * @returns {Promise<T>}
 */
const siteFile = (path, otherwise) =>
  fetch(new URL(path, root))
    .then((response) => (response.ok ? response.json() : otherwise))
    .catch(() => otherwise);

// Every system with its label, in the navigation's order (hooks/postprocess/search_index.py).
/** @type {Promise<ListedSystem[]> | null} */
let systems = null;
const loadSystems = () => (systems ??= siteFile("search/systems.json", []));

// The site's words (search/vocabulary.json), which tell the words that name rules and
// spell the others; without them, every word asked is kept, as typed.
/** @type {Promise<Vocabulary | null> | null} */
let vocabulary = null;
export const loadVocabulary = () =>
  (vocabulary ??= siteFile("search/vocabulary.json", null).then((data) => (data ? new Vocabulary(data) : null)));

const escapeText = (/** @type {string} */ text) =>
  String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Material's query language ("prone*", "+cover", "term~1"): only the words matter here.
const wordsOf = (/** @type {string} */ query) =>
  query
    .split(/\s+/)
    .map((term) => term.replace(/^[+-]/, "").replace(/[*]+$/, "").replace(/[~^]\d*$/, ""))
    .filter(Boolean)
    .join(" ");

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
    .map((section, order) => {
      const weight = (section.locations ?? []).filter(asked).length;
      // Every word typed in the section, not some of them (in a page that holds them all).
      const whole = typed.every((word) =>
        (section.locations ?? []).some((at) => held.get(at)?.includes(word)),
      );
      const title = partsOf(section.title ?? "");
      // How many of the words the heading holds: all of them, or the most of them where
      // none holds all ("Move Actions" for "shift as a move action").
      const naming = typed.filter((word) => title.some((part) => isFormOf(part, word))).length;
      const named = naming === typed.length;
      // As typed: "Grappling" for "grappling", where "Grappled" is another form of it;
      // "Arc" before "Archer" for "arc".
      const exact = named ? typed.reduce((sum, word) => sum + asTyped(title, word), 0) : 0;
      // How much of the heading the words are; a note in brackets, "Grapple (standard
      // action)", is not the rule's name.
      const name = partsOf((section.title ?? "").replace(/\([^)]*\)/g, " "));
      const asking = askingWords(name);
      const major = name.filter((part) => !asking.has(part));
      const covered = major.filter((part) => typed.some((word) => isFormOf(part, word)));
      const coverage = named ? covered.length / (major.length || 1) : 0;
      const level = named ? Number(HEADING.exec(section.anchor?.element ?? "")?.[1] ?? NOT_A_HEADING) : NOT_A_HEADING;
      return { section, order, weight, whole, naming, named, exact, coverage, level };
    })
    .filter(({ weight, named }) => weight > 0 || named)
    // Of two headings as near, the first: a rule is set out before the text comes back to
    // it ("Exhaustion", then its levels' "Exhaustion"); of two mentions, the fuller.
    .sort((a, b) => nearer(a, b) || (a.named ? a.order - b.order : b.weight - a.weight));
  const best = sections[0] ?? { named: false, exact: 0, coverage: 0, level: NOT_A_HEADING, whole: false, naming: 0 };
  // 0: a section of the text names the words; 1: an entry elsewhere names them;
  // 2: the text mentions them; 3: a page elsewhere mentions them.
  // A page of the system that restates its text (its Terms list, its GM screen) holds its
  // rules too, where its home page only speaks of them.
  const restates = data.meta?.kind === "restated";
  return { data, sections, ...best, standing: (best.named ? 0 : 2) + (rules ? 0 : 1), restates };
}

// Which of two sections names the words more nearly: named, more nearly as typed, more
// of its heading, a higher heading; or, named by none, holding every word, then with more
// of them in its heading.
// (A boolean counts as 1 or 0.)
/** @type {(a: Standing, b: Standing) => number} */
const nearer = (a, b) =>
  +b.named - +a.named ||
  b.exact - a.exact ||
  b.coverage - a.coverage ||
  a.level - b.level ||
  +b.whole - +a.whole ||
  b.naming - a.naming;
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
    // A section that holds only some of the words ("attack" alone, for "opportunity
    // attack") is listed only among the page's best: the page's other sections that
    // mention one word are no answer, and each is one more entry to draw.
    ...sections
      .filter(({ whole, named }, rank) => rank < BEST_SECTIONS || whole || named)
      .map(({ section }, rank) => ({
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
export class Superseded extends Error {}

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
 * The words a query asks the index for: those that name something, without the words that
 * only make a question of them (search-words.mjs: none where it has no other); each word
 * the site does not hold as its likeliest word of the site, unless typed in double quotes
 * (searched as typed, as the note's link does).
 * @param {string} typedText
 * @param {Vocabulary | null} vocabulary
 */
function wordsToSearch(typedText, vocabulary) {
  const typed = [...new Set(partsOf(typedText))];
  const quoted = new Set([...typedText.matchAll(/"([^"]*)"?/g)].flatMap((match) => partsOf(match[1])));
  const asking = askingWords(typed);
  const naming = typed.filter((word) => !asking.has(word));
  /** @type {[string, string][]} */
  const respelt = [];
  /** @type {[string, string][]} */
  const unspelt = [];
  const words = naming.map((word) => {
    const spelt = vocabulary ? vocabulary.spell(word, naming.filter((other) => other !== word)) : word;
    if (spelt === word) return word;
    (quoted.has(word) ? unspelt : respelt).push([word, spelt]);
    return quoted.has(word) ? word : spelt;
  });
  return { words: [...new Set(words)], respelt, unspelt };
}

/**
 * The results of all systems and of the reader's for the words, the first of each judged.
 * @param {Pagefind} pagefind
 * @param {string[]} typed
 * @param {string} reading the reader's system's slug, or another first folder, or ""
 * @param {() => boolean} typedOver
 */
async function lookFor(pagefind, typed, reading, typedOver) {
  const words = typed.map(prefixOf).join(" ");
  const [all, own] = await Promise.all([
    pagefind.search(words),
    reading ? pagefind.search(words, { filters: { system: reading } }) : null,
  ]);
  if (typedOver()) throw new Superseded();
  const order = new Map(all.results.map((result, i) => [result.id, i]));
  const rank = (/** @type {PagefindResult} */ result) => order.get(result.id) ?? Infinity;
  /** @type {Query} */
  const asked = { typed, rank, typedOver, pages: new Map() };
  const [readers, scanned] = await Promise.all([
    own ? judged(own.results, asked) : [],
    judged(all.results, asked),
  ]);
  return { words, all, asked, readers, scanned };
}

// Whether the results answer the words: a section of some text holds them all, or an
// entry names them.
const answers = (/** @type {{readers: Judged[], scanned: Judged[]}} */ { readers, scanned }) =>
  [readers[0], scanned[0]].some((best) => best && (best.standing <= 1 || (best.standing === 2 && best.whole)));

/**
 * @param {string} query
 * @param {() => boolean} typedOver
 * @returns {Promise<Answer>}
 */
export async function answer(query, typedOver) {
  // Words as the index has them: "two-weapon" is "two" and "weapon".
  const typedText = wordsOf(query);
  const nothing = { items: [], absent: [], words: "", respelt: [], unspelt: [], typedText };
  if (!partsOf(typedText).length) return nothing;
  const [pagefind, listed, known] = await Promise.all([loadPagefind(), loadSystems(), loadVocabulary()]);
  const { words: spelt, respelt, unspelt } = wordsToSearch(typedText, known);
  if (!spelt.length) return nothing;
  const reading = readingFolder();
  // Where no section holds every word (none of the text: "when does the escalation die go
  // up"), the word that says least is let go, until one does or one word is left.
  let look = await lookFor(pagefind, spelt, reading, typedOver);
  while (look.asked.typed.length > 1 && known && !answers(look)) {
    const weakest = known.weakest(look.asked.typed);
    look = await lookFor(pagefind, look.asked.typed.filter((word) => word !== weakest), reading, typedOver);
  }
  const { words, all, asked, readers, scanned } = look;
  const { typed } = asked;
  const counts = all.filters?.system ?? {};
  const matched = new Set(listed.filter(({ slug }) => counts[slug] > 0).map(({ slug }) => slug));
  // The reader's system's best first (READERS_FIRST of them), where its text has a section
  // on the words, then each other system's best, so no system's answer is left below
  // another's many pages: on a page outside any system, the systems' bests lead. Each
  // system's best is judged among its own first results; the systems among the first
  // results of all come first, then the others in the navigation's order, while the list
  // has room. A system whose only page with the words is one that speaks of its text (its
  // home page's "It covers skill checks" for "cover") has no rule on them: the others'
  // rules come first.
  if (reading && !readers.length) matched.delete(reading);
  const lead = readers.length && hasRule(readers[0]) ? readers.slice(0, READERS_FIRST) : [];
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
  const bests = await eachInTurn(alone, typedOver, (slug) =>
    found.get(slug) ??
    pagefind.search(words, { filters: { system: slug } }).then((answer) => bestOf(answer.results, asked)),
  );
  /** @type {Map<string, Judged>} */
  const bestOfSystem = new Map(readers.length ? [[reading, readers[0]]] : []);
  alone.forEach((slug, i) => {
    // The index's beginnings only ("savvy" for "saves"): no form of the words there.
    if (!bests[i]) matched.delete(slug);
    else bestOfSystem.set(slug, bests[i]);
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
    absent: listed.flatMap(({ slug, label }) => {
      const best = bestOfSystem.get(slug);
      /** @type {Absent[]} */
      const said = !matched.has(slug) ? [{ label, mentioned: false }]
        : best && !hasRule(best) ? [{ label, mentioned: true }]
        : [];
      return said;
    }),
    words: typed.join(" "),
    respelt,
    unspelt,
    typedText,
  };
}

// A system's own search, SEARCHES_AT_ONCE at a time: Pagefind answers its searches one by
// one, and cannot stop one it was sent; a query typed over sends no more, so the newest
// query's search waits behind a few of its searches, not behind one for every system.
export const SEARCHES_AT_ONCE = 3;
/**
 * The answers of `ask` for each item, in their order, asked at most SEARCHES_AT_ONCE at a time.
 * @template T, R
 * @param {T[]} items
 * @param {() => boolean} typedOver
 * @param {(item: T) => R | Promise<R>} ask
 * @returns {Promise<R[]>}
 */
export async function eachInTurn(items, typedOver, ask) {
  /** @type {R[]} */
  const answers = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const at = next++;
      if (typedOver()) throw new Superseded();
      answers[at] = await ask(items[at]);
    }
  };
  await Promise.all(Array.from({ length: SEARCHES_AT_ONCE }, lane));
  return answers;
}

// Whether a system's best result is a rule: a section of its text holds the words, an
// entry of its names them, or a page restating its text holds them (not only its home
// page, which speaks of the text: "It covers skill checks" for "cover").
const hasRule = (/** @type {Judgement} */ best) => best.standing < 3 || best.restates;
