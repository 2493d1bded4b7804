// The words of a search as docs/assets/javascripts/search-words.mjs reads them: the small
// words that only ask, and of the words asked together the one that says least. The
// vocabulary here is a small one made for each case; tests/test_search_questions.py asks
// the built site's own, in Chromium.
//
// Run with `node --test tests/node/`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { askingWords, Vocabulary } from "../../docs/assets/javascripts/search-words.mjs";

/**
 * @param {Record<string, number>} counts
 * @param {{headings?: string[], terms?: string[]}} [named]
 */
const vocabulary = (counts, { headings = [], terms = [] } = {}) => new Vocabulary({ counts, headings, terms });

test("a question's small words only ask; a word that names a rule elsewhere asks only after how", () => {
  assert.deepEqual([...askingWords("how do i heal".split(" "))], ["how", "do", "i"]);
  assert.deepEqual([...askingWords("how do i grapple someone".split(" "))], ["how", "do", "i", "someone"]);
  assert.deepEqual([...askingWords("how does cover work".split(" "))], ["how", "does", "work"]);
  assert.deepEqual([...askingWords("how long is a short rest".split(" "))], ["how", "long", "is", "a"]);
  assert.deepEqual([...askingWords("long rest".split(" "))], []);
  // The word being typed, a letter so far, names nothing yet.
  assert.deepEqual([...askingWords("critical h".split(" "))], ["h"]);
  for (const naming of ["help", "ready", "use", "other", "will", "up", "free", "far", "move"]) {
    assert.deepEqual([...askingWords([naming])], [], naming);
  }
});

test("of words asked together, the one that says least is one of no term's name, then no heading's", () => {
  const site = vocabulary(
    { spend: 30, recovery: 60, escalation: 20, die: 80, up: 400 },
    { headings: ["recovery", "escalation", "die"], terms: ["recovery", "escalation", "die"] },
  );
  assert.equal(site.weakest(["spend", "recovery"]), "spend");
  assert.equal(site.weakest(["escalation", "die", "go"]), "go");
  assert.equal(site.weakest(["escalation", "die"]), "die");
});
