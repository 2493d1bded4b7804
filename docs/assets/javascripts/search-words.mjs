// The words of a search, as search-results.mjs reads them: a word's forms (the index has
// no stemmer), the small words of a question, and the nearest word of the site's own
// vocabulary to one the site does not hold (search/vocabulary.json, written at build time
// from the index's text by hooks/postprocess/search_index.py).
/**
 * @typedef {{counts: Record<string, number>, headings: string[], terms: string[], titles: string[]}} VocabularyData
 *   search/vocabulary.json: each word of the indexed text with its occurrences, the words
 *   of a heading, the words of a term's or an entry's name, and the headings and names of
 *   two words or more.
 */

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
export function lemma(word) {
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
export const prefixOf = (/** @type {string} */ word) => {
  const stem = lemma(word).replace(/(?<=...)i$/, "");
  return /^[\p{L}\p{N}]+$/u.test(stem) ? stem : word.toLowerCase();
};
// A word of the page is one the reader asked for when it starts with what they typed
// ("crit": "critical") or is a form of it ("grapples": "grappled"); another word that
// merely starts with the same letters ("savvy" for "saves") is not.
export const partsOf = (/** @type {string} */ text) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
export const isFormOf = (/** @type {string} */ part, /** @type {string} */ typed) => part.startsWith(typed) || lemma(part) === lemma(typed);
// A word as typed, in the singular or the plural: "attacks" for "Opportunity Attack", not
// "grappled" for "grappling".
const singular = (/** @type {string} */ word) =>
  word.replace(/ies$/, "y").replace(/(ss|x|ch|sh|z)es$/, "$1").replace(/([^su])s$/, "$1");
// How a heading holds a word typed: 2 as typed, 1 as the start of a longer word that is
// not a form of it ("Critical" for "crit"), 0 as another form only.
export const asTyped = (/** @type {string[]} */ title, /** @type {string} */ typed) =>
  Math.max(
    ...title.map((part) =>
      singular(part) === singular(typed) ? 2
      : part.startsWith(typed) && lemma(part) !== lemma(typed) ? 1
      : 0,
    ),
  );
export const holds = (/** @type {string} */ text, /** @type {string} */ typed) => partsOf(text).some((part) => isFormOf(part, typed));

// ---------------------------------------------------------------- the words that ask
// The words of English that only make a question of the words that name a rule: "how do
// I heal", "how does cover work", "what happens if someone is prone". They never decide a
// ranking: a query of nothing else asks nothing yet (the start of a question, "how do
// I", is not searched). Words a rule may be named by ("help", "ready", "use", "other",
// "will", "up", "free", "far", "near") are not among them. Contractions come split:
// "what's" is "what" and "s"; and a letter alone names nothing (the word being typed).
const ASKING = new Set(
  [
    // who and what
    "i me my mine myself we us our you your yours he him his she her they them their",
    "it its itself someone somebody something anyone anybody anything everyone",
    "a an the this that these those some any",
    // asking and being
    "how what when where why who whom whose which whether",
    "do does did doing done is are was were be been am has have had having",
    "can could should would may might must shall",
    "s t m re ve ll d don doesn didn isn aren can cannot couldn shouldn wouldn",
    // tying
    "and or but if then so than as to of in on at by for from with about into onto",
    // a question's frame: "how does X work", "what happens when", "what does X mean",
    // "how do I get"
    "work works happen happens mean means get gets got",
  ].join(" ").split(" "),
);
// A word that asks only after "how" ("how long is a short rest", "how far can I jump"),
// and may name a rule elsewhere ("long rest", "far").
const HOW = new Set(["long", "many", "much", "far", "often", "big", "fast"]);
/**
 * The words of a query that only ask, among the query's words in their order.
 * @param {string[]} words
 */
export const askingWords = (words) =>
  new Set(
    words.filter(
      (word, i) => ASKING.has(word) || /^\p{L}$/u.test(word) || (HOW.has(word) && words[i - 1] === "how"),
    ),
  );

// ---------------------------------------------------------------- the site's words
/** The site's words (search/vocabulary.json): how often each is used, which name rules. */
export class Vocabulary {
  /** @param {VocabularyData} data */
  constructor({ counts, headings, terms, titles }) {
    this.counts = counts;
    this.terms = new Set(terms.map(lemma));
    this.headings = new Set(headings.map(lemma));
    this.words = Object.keys(counts);
    this.named = new Set([...headings, ...terms]);
    // How often the site uses a word in any of its forms ("grapple", "grappled",
    // "grappling"): how likely a reader means it.
    /** @type {Map<string, number>} */
    this.family = new Map();
    for (const word of this.words) {
      this.family.set(lemma(word), (this.family.get(lemma(word)) ?? 0) + counts[word]);
    }
    this.titles = titles.map((title) => new Set(title.split(" ").map(lemma)));
    /** @type {Map<string, string | null>} */
    this.nearestOf = new Map();
  }

  /**
   * Of several words asked together, the one that says least of what is asked: a word of
   * no term's name before one of a term ("spend" before "recovery"), of no heading before
   * one of a heading, then the more frequent (a word too short for the vocabulary first).
   * @param {string[]} words
   */
  weakest(words) {
    /** @type {(word: string) => number[]} */
    const strength = (word) => [
      +this.terms.has(lemma(word)),
      +this.headings.has(lemma(word)),
      -(this.counts[word] ?? Infinity),
    ];
    return words.reduce((weak, word) => (compare(strength(word), strength(weak)) < 0 ? word : weak));
  }

  /** Whether the site holds a form of the word, or a word it begins (as it is typed). */
  holds(/** @type {string} */ word) {
    return word.length < 3 || /\d/.test(word) || this.words.some((known) => isFormOf(known, word));
  }

  /**
   * The word as the site has it: itself where the site holds it, else its likeliest word,
   * else itself.
   * @param {string} word
   * @param {string[]} [others] the other words asked with it
   * @returns {string}
   */
  spell(word, others = []) {
    if (this.holds(word)) return word;
    const key = [word, ...others].join(" ");
    if (!this.nearestOf.has(key)) this.nearestOf.set(key, this.#nearest(word, others));
    return this.nearestOf.get(key) ?? word;
  }

  /**
   * The likeliest word of the vocabulary meant by one typed that the site does not hold:
   * of the words a few letters away (added, dropped, changed or swapped: at most one in a
   * word of five letters or fewer, two in a longer one), the one with the most in its
   * favour: each letter away counts against it as much as 20 times fewer uses of it (in
   * any of its forms), and a word of a heading or a term's name for it as much as 5 times
   * more ("grapel": "grapple", a letter undoubled and two swapped, not "travel", two
   * changed); a heading or name that holds it with another word asked ("half coer": "Half
   * Cover", not "core"), as much as a letter nearer.
   * @param {string} word
   * @param {string[]} others
   * @returns {string | null}
   */
  #nearest(word, others) {
    const together = this.titles.filter((title) => others.some((other) => title.has(lemma(other))));
    const limit = word.length <= 5 ? 1 : 2;
    let best = null;
    let bestScore = -Infinity;
    for (const known of this.words) {
      if (Math.abs(known.length - word.length) > limit) continue;
      const distance = editDistance(word, known, limit);
      if (distance > limit) continue;
      const used = /** @type {number} */ (this.family.get(lemma(known)));
      const score =
        Math.log(used) +
        (this.named.has(known) ? Math.log(5) : 0) +
        (together.some((title) => title.has(lemma(known))) ? Math.log(20) : 0) -
        distance * Math.log(20);
      if (score > bestScore) [best, bestScore] = [known, score];
    }
    return best;
  }
}

/** @type {(a: (number | string)[], b: (number | string)[]) => number} */
const compare = (a, b) => {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
};

/**
 * Letters added, dropped, changed, or two neighbours swapped, to make one word the other
 * (the optimal string alignment distance), a letter doubled or undoubled counting half
 * ("graple" for "grapple"); over `limit`, limit + 1.
 * @param {string} a
 * @param {string} b
 * @param {number} limit
 */
export function editDistance(a, b, limit) {
  // The cost of adding the letter at i of a word, which is half where it doubles the
  // letter before it.
  const adding = (/** @type {string} */ word, /** @type {number} */ i) => (i > 0 && word[i] === word[i - 1] ? 0.5 : 1);
  /** @type {number[][]} */
  const rows = [[0]];
  for (let j = 1; j <= b.length; j++) rows[0][j] = rows[0][j - 1] + adding(b, j - 1);
  for (let i = 1; i <= a.length; i++) {
    const row = (rows[i] = [rows[i - 1][0] + adding(a, i - 1)]);
    let least = row[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        rows[i - 1][j] + adding(a, i - 1),
        row[j - 1] + adding(b, j - 1),
        rows[i - 1][j - 1] + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j], rows[i - 2][j - 2] + 1);
      }
      least = Math.min(least, row[j]);
    }
    if (least > limit) return limit + 1;
  }
  return rows[a.length][b.length];
}
