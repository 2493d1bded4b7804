// What both kinds of widget show: an answer marked out of date until its inputs' answer
// arrives, a select's choice in full, a live answer's tables as Material wraps a page's,
// and the "Copy link" button (and copyText, which the Embed button's snippet uses too).

// A result still waiting for Python after this long is marked out of date; a quicker
// answer replaces it before anyone could read the mark, so it would only flicker.
const STALE_AFTER_MS = 150;

export class Staleness {
  // The out-of-date mark of some answers: at once, after STALE_AFTER_MS, or taken off.
  constructor() {
    this.timer = 0;
  }

  /**
   * @param {Element[] | Set<Element>} elements
   * @param {{now?: boolean}} [options]
   */
  mark(elements, { now = false } = {}) {
    clearTimeout(this.timer);
    const apply = () => elements.forEach((element) => element.classList.add("calc-result--stale"));
    if (now) apply();
    else this.timer = setTimeout(apply, STALE_AFTER_MS);
  }

  /** @param {Element[]} [elements] */
  clear(elements = []) {
    clearTimeout(this.timer);
    elements.forEach((element) => element.classList.remove("calc-result--stale"));
  }
}
// A select shows its choice in full, on as many lines as it takes: a phone's select cuts a
// long one to its one line ("Into the Unknown, Book 2: Playing the (" at 375 px, a few
// words at 200 % text). The select stays the control (its picker, its label, its keys),
// laid over the words of its choice, which follow its value however it is set: picked,
// or set by the address, a switch of system or the party.
const SELECT_VALUE = /** @type {{get(this: HTMLSelectElement): string, set(this: HTMLSelectElement, value: string): void}} */ (
  Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")
);

/** @param {HTMLFormElement} form */
export function showChoicesInFull(form) {
  for (const select of form.querySelectorAll("select")) {
    if (/** @type {HTMLElement} */ (select.parentElement).classList.contains("calc-select")) continue;
    const box = document.createElement("span");
    box.className = "calc-select";
    const shown = document.createElement("span");
    shown.className = "calc-select-text";
    shown.setAttribute("aria-hidden", "true"); // the select itself says its choice
    select.replaceWith(box);
    box.append(shown, select);
    const show = () => (shown.textContent = select.selectedOptions[0]?.textContent ?? "");
    Object.defineProperty(select, "value", {
      configurable: true,
      get() {
        return SELECT_VALUE.get.call(this);
      },
      set(value) {
        SELECT_VALUE.set.call(this, value);
        show();
      },
    });
    select.addEventListener("input", show);
    select.addEventListener("change", show);
    show();
  }
}

export function markFirstLiveResult() {
  // When Python first answered on this page (User Timing; the benchmark reads it).
  if (!performance.getEntriesByName("calc-first-live-result").length) {
    performance.mark("calc-first-live-result");
  }
}

/** @param {Element} result */
export function wrapTables(result) {
  // Material wraps the tables of a page in a scroll container once, when it loads; a
  // live result is new markup, so it gets the same wrapper, or the result would shift
  // when the live answer replaces the build-time one.
  for (const table of result.querySelectorAll("table:not([class])")) {
    const scroll = document.createElement("div");
    scroll.className = "md-typeset__scrollwrap";
    const inner = document.createElement("div");
    inner.className = "md-typeset__table";
    table.replaceWith(scroll);
    scroll.append(inner);
    inner.append(table);
  }
}

// The widget's Copy link button, built in beside its heading or under its form
// (hooks/pages/calculators.py, COPY_LINK), copies the page's address, inputs and all.
/** @param {HTMLElement} section */
export function bindCopyLink(section) {
  /** @type {HTMLButtonElement | null} */
  const button = section.querySelector(".calc-copy");
  const note = /** @type {HTMLElement | null} */ (section.querySelector(".calc-copied"));
  if (!button || !note) return;
  let timer = 0; // until the note is taken off
  button.addEventListener("click", async () => {
    const copied = await copyText(location.href);
    note.textContent = copied ? "Copied" : "Select the address to copy it";
    clearTimeout(timer);
    timer = setTimeout(() => (note.textContent = ""), 2500);
  });
}

// Copies text to the clipboard; resolves with whether it could.
/** @param {string} text */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin, an old browser): a selected field the reader
    // copies from, which also serves the old execCommand route.
    return copyByHand(text);
  }
}

/** @param {string} text */
function copyByHand(text) {
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.className = "calc-copy-field";
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}
