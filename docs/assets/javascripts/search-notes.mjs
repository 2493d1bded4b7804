// What the results say above their list, under Material's count (search.js shows them
// with each answer of search-results.mjs), set as text: the systems with no rule on the
// words, "3d6 Combat: nothing on “prone”" where no page of it has them, "4e Core: no rule
// on “cover” in its text" where only its home page speaks of them.
/** @typedef {import("./search-results.mjs").Answer} Answer */

const ABSENT = "search-absent";

/**
 * The results' note `name`, made where it is missing: under the count.
 * @param {Element} result
 * @param {string} name
 * @param {string} tag
 */
function noteIn(result, name, tag) {
  let note = result.querySelector(`.${name}`);
  if (!note) {
    note = document.createElement(tag);
    note.className = name;
    result.querySelector(".md-search-result__meta")?.after(note);
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
 * Shows the notes of an answer, or none (an emptied box, a failed search).
 * @param {Partial<Answer>} [answer]
 */
export function showNotes(answer = {}) {
  const result = document.querySelector(".md-search-result");
  if (!result) return;
  const { absent = [], words = "" } = answer;
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
