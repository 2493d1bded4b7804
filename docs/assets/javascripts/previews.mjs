// Previews in place for the glossary links (class term-link, hooks/pages/linker.py) and the dice
// chips (class dice-chip, hooks/pages/dice_chips.py). A tap, a pen or the keyboard (Enter)
// opens a small panel under the word instead of leaving the page: the definition and
// "Go to the rule"; for dice, the minimum, average and maximum the rules core computed
// at build time (data-min, data-mean, data-max), a Roll button and the calculator that
// fits the sentence. A mouse click still follows the link, and hovering shows the definition
// (the browser's tooltip) or the figures (the theme's). Tapping the word again, Escape or a
// tap outside closes the panel.
//
// The figures are never computed here: they are the build's. The Roll button only rolls
// the dice of the canonical expression (data-roll, e.g. "4d6kh3+2").
//
// Safety: the panel is built with createElement and textContent only.

const TRIGGERS = ".md-typeset a.term-link, .md-typeset .dice-chip";
const panel = document.createElement("div");
panel.className = "preview md-typeset";
panel.id = "preview";
panel.setAttribute("role", "dialog");
panel.hidden = true;
/** @type {HTMLElement | null} */
let opener = null; // the word whose preview is open

// A term link carries its definition as data (hooks/pages/linker.py), so the theme mounts no
// tooltip per link when a page loads; a hovered or focused link gets it as its title, which
// the browser shows and reads out.
/** @param {Event} event */
function titled(event) {
  /** @type {HTMLAnchorElement | false | null} */
  const link = event.target instanceof Element && event.target.closest(".md-typeset a.term-link");
  if (link && !link.title) link.title = link.dataset.definition || "";
}
document.addEventListener("pointerover", titled);
document.addEventListener("focusin", titled);
// A new page (instant navigation, e.g. after "Go to the rule" or the calculator link): a
// preview of the last page's word must not stay open over it.
if (window.document$) window.document$.subscribe(() => close(false));

// Capture phase, on window: runs before the theme's own click handlers (instant loading).
window.addEventListener(
  "click",
  (event) => {
    /** @type {HTMLElement | false | null} */
    const trigger = event.target instanceof Element && event.target.closest(TRIGGERS);
    if (!trigger) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
    // A mouse click on a link follows it; every other way of pressing opens the preview.
    const isLink = trigger.tagName === "A";
    const pointerType = /** @type {PointerEvent} */ (event).pointerType;
    if (isLink && pointerType === "mouse") return;
    event.preventDefault();
    event.stopPropagation();
    if (opener === trigger) close(true);
    else open(trigger, pointerType === "" || event.detail === 0);
  },
  true,
);

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && opener) {
    event.preventDefault();
    close(true);
  }
});

document.addEventListener("pointerdown", (event) => {
  if (!opener || !(event.target instanceof Node)) return;
  if (panel.contains(event.target) || opener.contains(event.target)) return;
  close(false);
});

/**
 * @param {HTMLElement} trigger a term's link or a dice chip
 * @param {boolean} fromKeyboard
 */
function open(trigger, fromKeyboard) {
  close(false);
  opener = trigger;
  const heading = document.createElement("p");
  heading.className = "preview__title";
  heading.id = "preview-title";
  heading.textContent = trigger.textContent.trim();
  const anchor = /** @type {HTMLAnchorElement} */ (trigger);
  panel.replaceChildren(heading, ...(trigger.classList.contains("dice-chip") ? dice(trigger) : term(anchor)));
  panel.setAttribute("aria-labelledby", heading.id);
  if (!panel.isConnected) document.body.append(panel);
  panel.hidden = false;
  trigger.setAttribute("aria-expanded", "true");
  trigger.setAttribute("aria-controls", panel.id);
  place(trigger);
  // The keyboard moves into the panel; a tap leaves the focus where it was.
  /** @type {HTMLElement | null} */
  const first = panel.querySelector("a, button");
  if (fromKeyboard && first) first.focus();
}

/** @param {boolean} returnFocus */
function close(returnFocus) {
  if (!opener) return;
  opener.setAttribute("aria-expanded", "false");
  if (returnFocus) opener.focus();
  opener = null;
  panel.hidden = true;
}

/** @param {HTMLAnchorElement} link */
function term(link) {
  const definition = document.createElement("p");
  definition.textContent = link.dataset.definition || "";
  const go = document.createElement("a");
  go.href = link.href;
  go.className = "preview__go";
  go.textContent = "Go to the rule";
  return [definition, go];
}

/**
 * @param {HTMLElement} chip a dice chip: a span, or a link to its calculator
 * @returns {HTMLElement[]}
 */
function dice(chip) {
  const figures = document.createElement("p");
  figures.className = "preview__figures";
  /** @type {[string, string | undefined][]} */
  const shown = [
    ["Min", chip.dataset.min],
    ["Average", chip.dataset.mean],
    ["Max", chip.dataset.max],
  ];
  for (const [label, value] of shown) {
    const figure = document.createElement("span");
    const name = document.createElement("span");
    name.className = "preview__label";
    name.textContent = label;
    const number = document.createElement("strong");
    number.textContent = /** @type {string} */ (value); // a figure missing is shown as none
    figure.append(name, " ", number);
    figures.append(figure);
  }
  const roll = document.createElement("button");
  roll.type = "button";
  roll.className = "md-button preview__roll";
  roll.textContent = "Roll";
  const rolled = document.createElement("output");
  rolled.className = "preview__rolled";
  rolled.setAttribute("aria-live", "polite");
  roll.addEventListener("click", () => {
    const result = rollDice(chip.dataset.roll || "");
    if (!result) return;
    const total = String(result.total);
    rolled.textContent = result.shown === total ? `Rolled ${total}` : `Rolled ${total} (${result.shown})`;
  });
  /** @type {HTMLElement[]} */
  const parts = [figures, roll, rolled];
  if (chip.tagName === "A" && chip.dataset.calculator) {
    const go = document.createElement("a");
    go.href = /** @type {HTMLAnchorElement} */ (chip).href;
    go.className = "preview__go";
    go.textContent = chip.dataset.calculator;
    parts.push(go);
  }
  return parts;
}

// Roll a canonical expression such as "2d6+1d4kh1-2" or "1d%": uniform whole dice,
// kept highest/lowest as written. Returns the total and the dice as rolled.
/** @param {string} expression */
function rollDice(expression) {
  const terms = expression.replace(/\s+/g, "").match(/[+-]?[^+-]+/g) || [];
  let total = 0;
  const shown = [];
  for (const term of terms) {
    const sign = term.startsWith("-") ? -1 : 1;
    const body = term.replace(/^[+-]/, "");
    const match = /^(\d*)d(\d+|%)(?:k([hl])(\d+))?$/.exec(body);
    if (!match) {
      if (!/^\d+$/.test(body)) return null;
      total += sign * Number(body);
      shown.push(`${sign < 0 ? "−" : ""}${body}`);
      continue;
    }
    const count = Number(match[1] || 1);
    const sides = match[2] === "%" ? 100 : Number(match[2]);
    const values = Array.from({ length: count }, () => 1 + Math.floor(random() * sides));
    let kept = values;
    if (match[3]) {
      const order = [...values].sort((a, b) => (match[3] === "h" ? b - a : a - b));
      kept = order.slice(0, Number(match[4]));
    }
    total += sign * kept.reduce((sum, value) => sum + value, 0);
    shown.push(`${sign < 0 ? "−" : ""}${values.join(" ")}${kept === values ? "" : ` keep ${kept.join(" ")}`}`);
  }
  return { total, shown: shown.join(" + ").replace(/\+ −/g, "− ") };
}

function random() {
  const value = new Uint32Array(1);
  crypto.getRandomValues(value);
  return value[0] / 2 ** 32;
}

// Under the word, inside the viewport's width; above it when there is no room below.
/** @param {Element} trigger */
function place(trigger) {
  const box = trigger.getBoundingClientRect();
  const width = Math.min(panel.offsetWidth, document.documentElement.clientWidth - 16);
  const left = Math.max(8, Math.min(box.left, document.documentElement.clientWidth - width - 8));
  const below = box.bottom + 6;
  const top = below + panel.offsetHeight > window.innerHeight && box.top > panel.offsetHeight + 6
    ? box.top - panel.offsetHeight - 6
    : below;
  panel.style.left = `${left + window.scrollX}px`;
  panel.style.top = `${top + window.scrollY}px`;
}
