// A citation links to the sentence it rests on (#said-..., hooks/pages/sentences.py): the
// build put an empty marker before the sentence's first word (that id) and one after its
// last (the id + "-end"). On arrival, by a full load or the theme's instant navigation,
// the text between the two is highlighted, so the reader sees which words the answer
// rests on, not only the section. The CSS Custom Highlight API marks the text without
// touching the page's elements; where a browser lacks it, the link still lands on the
// sentence (anchor-arrival.mjs brings it into view).

const NAME = "cited-sentence";

function markCitedSentence() {
  if (!window.CSS || !CSS.highlights || typeof Highlight !== "function") return;
  CSS.highlights.delete(NAME);
  let id = "";
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch {
    return; // a malformed address: nothing to mark
  }
  if (!id.startsWith("said-")) return;
  const start = document.getElementById(id);
  const end = document.getElementById(`${id}-end`);
  if (!start || !end) return;
  const range = document.createRange();
  range.setStartAfter(start);
  range.setEndBefore(end);
  CSS.highlights.set(NAME, new Highlight(range));
}

if (window.document$) window.document$.subscribe(markCitedSentence);
else markCitedSentence();
window.addEventListener("hashchange", markCitedSentence);
