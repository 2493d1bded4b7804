// What the results say above their list, under Material's count (search.js shows them
// with each answer of search-results.mjs), all of it set as text:
// - the words searched where a word typed is not the site's: "Showing results for
//   critical hit. Search instead for critcal hit", the words typed a link away (in quotes:
//   searched as typed), and once searched as typed the site's words a link away. A link,
//   not a button: Material's search moves the keyboard (arrow keys) through its links,
//   and the link's address (?q=, which Material reads) is the search it makes. A status
//   line, so a screen reader says it as it changes;
// - the systems with no rule on the words: "3d6 Combat: nothing on “prone”" where no page
//   of it has them, "4e Core: no rule on “cover” in its text" where only its home page
//   speaks of them.
/** @typedef {import("./search-results.mjs").Answer} Answer */

const SPELLING = "search-spelling";
const ABSENT = "search-absent";

/**
 * The results' note `name`, made where it is missing: under the count, the spelling
 * first. Both are placed once and kept: a status line is said where it is already on the
 * page when its words change.
 * @param {Element} result
 * @param {string} name
 * @param {string} tag
 */
function noteIn(result, name, tag) {
  let note = result.querySelector(`.${name}`);
  if (!note) {
    note = document.createElement(tag);
    note.className = name;
    const spelling = name === SPELLING ? null : result.querySelector(`.${SPELLING}`);
    (spelling ?? result.querySelector(".md-search-result__meta"))?.after(note);
  }
  return note;
}

/**
 * @param {string} text
 * @param {string} [tag]
 */
const element = (text, tag = "span") => {
  const made = document.createElement(tag);
  made.textContent = text;
  return made;
};

/**
 * The search box asks for `query`, as if typed: Material sends it on the box's key-up.
 * @param {string} query
 */
function searchFor(query) {
  const box = /** @type {HTMLInputElement | null} */ (document.querySelector(".md-search__input"));
  if (!box) return;
  box.value = query;
  box.dispatchEvent(new KeyboardEvent("keyup"));
}

/**
 * A link that searches for `query`, from the page being read.
 * @param {string} text
 * @param {string} query
 */
function searchLink(text, query) {
  const link = document.createElement("a");
  const address = new URL(location.href);
  address.hash = "";
  address.searchParams.set("q", query);
  link.href = address.href;
  link.textContent = text;
  link.addEventListener("click", (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    // Searched here, not followed: the theme's instant navigation, which takes every
    // click on a link of the site, would load the page anew and close the search.
    event.preventDefault();
    event.stopPropagation();
    searchFor(query);
  });
  return link;
}

/**
 * The query typed, in its words and what is between them, each word of `respelling`
 * set apart (as the site spells it where `respell`).
 * @param {string} typedText
 * @param {Map<string, string>} respelling
 * @param {boolean} respell
 * @returns {(string | Node)[]}
 */
const marked = (typedText, respelling, respell) =>
  typedText.split(/([\p{L}\p{N}]+)/u).map((part) => {
    const other = respelling.get(part.toLowerCase());
    return other ? element(respell ? other : part, "em") : part;
  });

/**
 * Shows the notes of an answer, or none (an emptied box, a failed search).
 * @param {Partial<Answer>} [answer]
 */
export function showNotes(answer = {}) {
  const result = document.querySelector(".md-search-result");
  if (!result) return;
  const { absent = [], words = "", respelt = [], unspelt = [], typedText = "" } = answer;
  const spelling = noteIn(result, SPELLING, "p");
  spelling.setAttribute("role", "status");
  const refocus = spelling.contains(document.activeElement);
  const respelling = new Map(respelt.length ? respelt : unspelt);
  const wordsIn = (/** @type {string} */ text) => text.replace(/[\p{L}\p{N}]+/gu, (part) => respelling.get(part.toLowerCase()) ?? part);
  if (respelt.length) {
    // The words respelt, quoted: searched as typed.
    const asTyped = typedText.replace(/[\p{L}\p{N}]+/gu, (part) => (respelling.has(part.toLowerCase()) ? `"${part}"` : part));
    spelling.replaceChildren(
      "Showing results for ",
      ...marked(typedText, respelling, true),
      ". Search instead for ",
      searchLink(typedText, asTyped),
    );
  } else if (unspelt.length) {
    const siteWords = wordsIn(typedText).replace(/"/g, "");
    spelling.replaceChildren(
      "Showing results for ",
      ...marked(typedText, respelling, false),
      ", as typed. Search instead for ",
      searchLink(siteWords, siteWords),
    );
  } else {
    spelling.replaceChildren();
  }
  // The link taken leaves its place to the other, where the keyboard stays; or to none,
  // and the keyboard is back in the search box.
  if (refocus) {
    (spelling.querySelector("a") ?? /** @type {HTMLElement | null} */ (document.querySelector(".md-search__input")))?.focus();
  }
  if (!absent.length) {
    result.querySelector(`.${ABSENT}`)?.remove();
    return;
  }
  noteIn(result, ABSENT, "ul").replaceChildren(
    ...absent.map(({ label, mentioned }) =>
      element(
        mentioned ? `${label}: no rule on “${words}” in its text` : `${label}: nothing on “${words}”`,
        "li",
      ),
    ),
  );
}
