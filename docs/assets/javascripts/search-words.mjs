// The words of a search, as search-results.mjs reads them: a word's forms (the index has
// no stemmer).

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
