// A query's searches of each system (docs/assets/javascripts/search-results.mjs): asked a
// few at a time, in order, and none asked once the query is typed over, so the newest
// query does not wait behind a search of every system for words no longer on screen.
//
// Run with `node --test tests/node/`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { eachInTurn, SEARCHES_AT_ONCE, Superseded } from "../../docs/assets/javascripts/search-results.mjs";

const systems = Array.from({ length: 10 }, (_, i) => `system-${i}`);

test("each system's search is answered in the systems' order, a few at a time", async () => {
  let running = 0;
  let most = 0;
  const answers = await eachInTurn(systems, () => false, async (slug) => {
    most = Math.max(most, ++running);
    await new Promise((resolve) => setTimeout(resolve, 1));
    running--;
    return slug.toUpperCase();
  });
  assert.deepEqual(answers, systems.map((slug) => slug.toUpperCase()));
  assert.equal(most, SEARCHES_AT_ONCE);
});

test("once the query is typed over, no further system is searched", async () => {
  const asked = [];
  let typedOver = false;
  const answering = eachInTurn(systems, () => typedOver, async (slug) => {
    asked.push(slug);
    await new Promise((resolve) => setTimeout(resolve, 1));
    typedOver = true; // a key came while the first searches ran
    return slug;
  });
  await assert.rejects(answering, Superseded);
  assert.equal(asked.length, SEARCHES_AT_ONCE);
});
