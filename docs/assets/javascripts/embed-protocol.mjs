// The messages between an embed's frame (embed-page.mjs) and the page that embeds it, as the
// README's "Embedding" section documents them. Version 1:
//
// - the frame says its content's height: {type: "open-rules-reference:height", version: 1,
//   height} (CSS pixels, a whole number), to its parent, whenever it changes; embed-host.js,
//   the snippet's optional script, sets the frame's height to it;
// - the host says it listens, and at most a theme: {type: "open-rules-reference:host",
//   version: 1, theme?: "light" | "dark" | "auto"}; the frame says its height again, and
//   shows the theme ("auto": the reader's setting).
//
// Nothing else is heard. A message from the host is checked here before anything reads it,
// by its shape alone, with bounded work whatever it holds (a string of megabytes, an object
// nested thousands deep, a look-alike of these); anything else is ignored. Nothing of a
// message becomes markup or code: a theme is one of three words.

export const VERSION = 1;
export const HEIGHT = "open-rules-reference:height";
export const HOST = "open-rules-reference:host";
export const THEMES = /** @type {const} */ (["light", "dark", "auto"]);
// The tallest height the frame says (and embed-host.js takes): well past any calculator's.
export const MOST_HEIGHT = 100_000;

/**
 * @typedef {(typeof THEMES)[number]} Theme
 * @typedef {{type: typeof HEIGHT, version: typeof VERSION, height: number}} HeightMessage
 * @typedef {{type: typeof HOST, version: typeof VERSION, theme?: Theme}} HostMessage
 */

/**
 * What the frame says of its height.
 * @param {number} height
 * @returns {HeightMessage}
 */
export function heightMessage(height) {
  return { type: HEIGHT, version: VERSION, height: Math.min(Math.ceil(height), MOST_HEIGHT) };
}

/**
 * A message the host sent, if it is one of version 1 (null for anything else): a plain
 * object whose own `type` and `version` are this protocol's and whose own `theme`, if it has
 * one, is one of THEMES. Only those three are read, each by its name: the work is the same
 * however many keys, or how deep a value, the message holds.
 * @param {unknown} data
 * @returns {HostMessage | null}
 */
export function fromHost(data) {
  if (typeof data !== "object" || data === null || Object.getPrototypeOf(data) !== Object.prototype) return null;
  const own = (/** @type {string} */ key) => (Object.hasOwn(data, key) ? /** @type {Record<string, unknown>} */ (data)[key] : undefined);
  if (own("type") !== HOST || own("version") !== VERSION) return null;
  if (!Object.hasOwn(data, "theme")) return { type: HOST, version: VERSION };
  const theme = THEMES.find((each) => each === own("theme"));
  return theme ? { type: HOST, version: VERSION, theme } : null;
}
