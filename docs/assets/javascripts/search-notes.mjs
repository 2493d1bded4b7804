// What the results say above their list, under Material's count (search.js shows them
// with each answer of search-results.mjs), set as text.
/** @typedef {import("./search-results.mjs").Answer} Answer */

// "3d6 Combat: nothing on “prone”", under the count: which systems the results leave out
// because their text does not have the words. Labels and words are set as text.
const ABSENT = "search-absent";
/** @param {Partial<Answer>} [answer] */
export function showNotes({ absent = [], words = "" } = {}) {
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
