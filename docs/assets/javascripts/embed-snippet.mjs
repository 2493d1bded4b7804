// A calculator's "Embed" button, beside its Copy link (hooks/pages/calculators.py): it opens a
// panel with the snippet that shows this calculator in another site's page, with the inputs on
// screen, as they change: an <iframe> of its embed page (hooks/pages/embed.py), titled, whose
// address holds the inputs as a shared link does (a link and an embed of the same inputs open
// the same question), and the optional script that lets the frame take its content's height
// (embed-host.js). A theme may be chosen, else the frame follows the reader's setting.
//
// Safety: the snippet is text in a textarea; what it holds of the page (the inputs, the title)
// is escaped for the attribute it sits in.

import { copyText } from "./calculator-view.mjs";

/** @typedef {import("./calculator-widget.mjs").Calculator} Calculator */

// The height the snippet gives a frame before its script sets it (or for good, without the
// script): the widget's own, within these bounds; past them the frame scrolls.
const LEAST_HEIGHT = 360;
const MOST_HEIGHT = 900;
const THEMES = [
  ["", "As the reader's setting says"],
  ["light", "Light"],
  ["dark", "Dark"],
];

/** @param {Calculator[]} widgets */
export function offerEmbeds(widgets) {
  for (const widget of widgets) {
    /** @type {HTMLButtonElement | null} */
    const button = widget.section.querySelector(".calc-embed");
    if (button) button.addEventListener("click", () => toggle(widget, button));
  }
}

/**
 * @param {Calculator} widget
 * @param {HTMLButtonElement} button
 */
function toggle(widget, button) {
  const id = `${widget.name}-embed`;
  let panel = document.getElementById(id);
  if (!panel) {
    panel = makePanel(widget, id);
    /** @type {Element} */ (widget.section.querySelector(".calc-tools")).after(panel);
    button.setAttribute("aria-controls", id);
  }
  const open = panel.hidden;
  panel.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  if (open) /** @type {HTMLElement} */ (panel.querySelector("textarea")).focus();
}

/**
 * @param {Calculator} widget
 * @param {string} id
 */
function makePanel(widget, id) {
  const panel = document.createElement("div");
  panel.className = "calc-embed-panel";
  panel.id = id;
  panel.hidden = true; // until the button opens it
  const said = document.createElement("p");
  said.textContent =
    "Paste this into a page of your own (a wiki, a blog, a VTT journal): this calculator, " +
    "with the inputs on screen now. Its script lets the frame take the calculator's height; " +
    "without it the frame keeps this height and scrolls.";
  const themeLabel = document.createElement("label");
  themeLabel.className = "calc-label";
  themeLabel.htmlFor = `${id}-theme`;
  themeLabel.textContent = "Light or dark";
  const theme = document.createElement("select");
  theme.id = `${id}-theme`;
  for (const [value, label] of THEMES) theme.append(new Option(label, value));
  const codeLabel = document.createElement("label");
  codeLabel.className = "calc-label";
  codeLabel.htmlFor = `${id}-code`;
  codeLabel.textContent = "Embed code";
  const code = document.createElement("textarea");
  code.id = `${id}-code`;
  code.className = "calc-embed-code";
  code.readOnly = true;
  code.rows = 5;
  code.spellcheck = false;
  code.addEventListener("focus", () => code.select()); // whole, to copy
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "calc-embed-copy";
  copy.textContent = "Copy code";
  const copied = document.createElement("span");
  copied.className = "calc-copied";
  copied.setAttribute("role", "status");
  copy.addEventListener("click", async () => {
    copied.textContent = (await copyText(code.value)) ? "Copied" : "Select the code to copy it";
  });
  const write = () => {
    code.value = snippet(widget, theme.value);
    copied.textContent = "";
  };
  // The inputs as they are now, as the reader edits them (after the widget has read the edit).
  widget.form.addEventListener("input", write);
  widget.form.addEventListener("change", write);
  theme.addEventListener("change", write);
  panel.append(said, themeLabel, theme, codeLabel, code, copy, copied);
  write();
  return panel;
}

/**
 * The snippet: the embed page's frame, with the widget's inputs that differ from its page as
 * built (its addressEntries, the shared link's), and the host script.
 * @param {Calculator} widget
 * @param {string} theme "", "light" or "dark"
 */
export function snippet(widget, theme) {
  const query = new URLSearchParams(widget.addressEntries());
  if (theme) query.set("theme", theme);
  const search = query.toString();
  const page = new URL(`../../embed/${widget.name}/${search ? `?${search}` : ""}`, import.meta.url);
  const script = new URL("embed-host.js", import.meta.url);
  const heading = widget.section.querySelector("h2")?.textContent ?? widget.section.getAttribute("aria-label");
  /** @type {HTMLMetaElement | null} */
  const site = document.querySelector('meta[property="og:site_name"]');
  const title = site ? `${heading} · ${site.content}` : `${heading}`;
  const measured = Math.ceil(widget.section.getBoundingClientRect().height / 10) * 10;
  const height = Math.min(MOST_HEIGHT, Math.max(LEAST_HEIGHT, measured));
  return (
    `<iframe src="${attribute(page.href)}" title="${attribute(title)}" width="100%" ` +
    `height="${height}" loading="lazy" style="border: 0"></iframe>\n` +
    `<script src="${attribute(script.href)}" async></script>`
  );
}

/** @param {string} text */
function attribute(text) {
  return text.replace(/[&"<>]/g, (c) => /** @type {Record<string, string>} */ ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c]);
}
