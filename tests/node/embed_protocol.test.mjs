// The embed's message protocol (embed-protocol.mjs, the README's "Embedding"): what a host page
// may say to an embed is checked by its shape alone, with bounded work, and anything not of
// version 1's shape is ignored: a look-alike of its messages, wrong types, a string of
// megabytes, an object nested thousands deep; keys besides the protocol's are not read, a
// million of them no more than one. The browser test
// (tests/test_browser_embed.py) sends these from a real host page to a real embed.
//
// Run with `node --test tests/node/`.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const SCRIPTS = fileURLToPath(new URL("../../docs/assets/javascripts/", import.meta.url));
const { HEIGHT, HOST, MOST_HEIGHT, THEMES, VERSION, fromHost, heightMessage } = await import(
  pathToFileURL(path.join(SCRIPTS, "embed-protocol.mjs")).href
);

function nested(depth) {
  let value = { type: HOST, version: VERSION };
  for (let level = 0; level < depth; level += 1) value = { type: HOST, version: VERSION, theme: value };
  return value;
}

test("the host's message of version 1 is heard, with a theme or none", () => {
  assert.deepEqual(fromHost({ type: HOST, version: VERSION }), { type: HOST, version: VERSION });
  // What else it holds is not read.
  assert.deepEqual(fromHost({ type: HOST, version: VERSION, theme: "dark", height: "<b>" }), {
    type: HOST,
    version: VERSION,
    theme: "dark",
  });
  for (const theme of THEMES) {
    assert.deepEqual(fromHost({ type: HOST, version: VERSION, theme }), { type: HOST, version: VERSION, theme });
  }
});

test("anything else is ignored, however it is made", () => {
  const many = { type: HOST, version: VERSION };
  for (let key = 0; key < 1_000_000; key += 1) many[`k${key}`] = key;
  const hostile = [
    undefined,
    null,
    0,
    "open-rules-reference:host",
    "x".repeat(5_000_000),
    [HOST, VERSION],
    { type: HOST },
    { type: HOST, version: "1" },
    { type: HOST, version: 2 },
    { type: `${HOST} `, version: VERSION },
    { type: HOST.toUpperCase(), version: VERSION },
    { type: HEIGHT, version: VERSION, height: 10 },
    { type: HOST, version: VERSION, theme: "<img src=x onerror=alert(1)>" },
    { type: HOST, version: VERSION, theme: "Dark" },
    { type: HOST, version: VERSION, theme: ["dark"] },
    { type: HOST, version: VERSION, theme: { toString: () => "dark" } },
    { type: HOST, version: VERSION, theme: "x".repeat(5_000_000) },
    { type: "x".repeat(5_000_000), version: VERSION },
    { type: HOST, version: VERSION, __proto__: { theme: "dark" } },
    Object.assign(Object.create(null), { type: HOST, version: VERSION }),
    nested(10_000),
    new Date(),
    new Map([["type", HOST]]),
  ];
  for (const [index, data] of hostile.entries()) {
    const started = performance.now();
    assert.equal(fromHost(data), null, `message ${index}`);
    assert.ok(performance.now() - started < 50, `bounded work: message ${index}`);
  }
  // A million keys besides the protocol's: none of them is read, nor walked.
  const started = performance.now();
  assert.deepEqual(fromHost(many), { type: HOST, version: VERSION });
  assert.ok(performance.now() - started < 50);
});

test("the frame's height is a whole number of pixels, bounded", () => {
  assert.deepEqual(heightMessage(812.2), { type: HEIGHT, version: VERSION, height: 813 });
  assert.equal(heightMessage(1e9).height, MOST_HEIGHT);
});
