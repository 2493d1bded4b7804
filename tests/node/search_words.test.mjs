// The words of a search as docs/assets/javascripts/search-words.mjs reads them: the small
// words that only ask, the distance between two spellings, and the word of the site's
// vocabulary a misspelt word is searched as. The vocabulary here is a small one made for
// each case; tests/test_search_questions.py asks the built site's own, in Chromium.
//
// Run with `node --test tests/node/`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { askingWords, editDistance, Vocabulary } from "../../docs/assets/javascripts/search-words.mjs";

/**
 * @param {Record<string, number>} counts
 * @param {{headings?: string[], terms?: string[], titles?: string[]}} [named]
 */
const vocabulary = (counts, { headings = [], terms = [], titles = [] } = {}) =>
  new Vocabulary({ counts, headings, terms, titles });

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

test("the distance counts letters added, dropped, changed and swapped, a letter doubled as half", () => {
  assert.equal(editDistance("initative", "initiative", 2), 1);
  assert.equal(editDistance("atack", "attack", 2), 0.5);
  assert.equal(editDistance("flankng", "flanking", 2), 1);
  assert.equal(editDistance("critcal", "critical", 2), 1);
  assert.equal(editDistance("grapel", "grapple", 2), 1.5);
  assert.equal(editDistance("recieve", "receive", 2), 1);
  assert.equal(editDistance("prone", "prone", 2), 0);
  // Past the limit, the count stops at limit + 1.
  assert.equal(editDistance("initiative", "cover", 2), 3);
});

test("a word the site holds, or begins, or holds in another form, is searched as typed", () => {
  const site = vocabulary({ initiative: 40, grappled: 10, enemies: 5 });
  for (const word of ["initiative", "init", "grapple", "grappling", "enemy", "d20", "hp"]) {
    assert.equal(site.spell(word), word, word);
  }
});

test("a word the site does not hold is searched as the likeliest word of the site", () => {
  const site = vocabulary(
    { initiative: 40, initiate: 1, attack: 800, stack: 3, grapple: 20, grappled: 10, travel: 30 },
    { headings: ["initiative", "attack", "grapple"] },
  );
  assert.equal(site.spell("initative"), "initiative");
  // As near, "attack" is the site's word far more often than "stack".
  assert.equal(site.spell("atack"), "attack");
  // Further than "travel" by its letters, but a rule's name and used in more forms.
  assert.equal(site.spell("grapel"), "grapple");
  // Nothing near enough: the word stays as typed (and finds nothing).
  assert.equal(site.spell("dragon"), "dragon");
});

test("a heading that holds the word with another word asked tells two spellings apart", () => {
  const site = vocabulary({ core: 200, cover: 60, half: 10 }, { headings: ["core", "cover", "half"], titles: ["half cover"] });
  assert.equal(site.spell("coer"), "core");
  assert.equal(site.spell("coer", ["half"]), "cover");
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
