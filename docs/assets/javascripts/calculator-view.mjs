// What both kinds of widget show: an answer marked out of date until its inputs' answer
// arrives, messages beside the fields, and the "Copy link" button.

import { named } from "./calculator-address.mjs";

// A result still waiting for Python after this long is marked out of date; a quicker
// answer replaces it before anyone could read the mark, so it would only flicker.
const STALE_AFTER_MS = 150;

export class Staleness {
  // The out-of-date mark of some answers: at once, after STALE_AFTER_MS, or taken off.
  constructor() {
    this.timer = 0;
  }

  mark(elements, { now = false } = {}) {
    clearTimeout(this.timer);
    const apply = () => elements.forEach((element) => element.classList.add("calc-result--stale"));
    if (now) apply();
    else this.timer = setTimeout(apply, STALE_AFTER_MS);
  }

  clear(elements = []) {
    clearTimeout(this.timer);
    elements.forEach((element) => element.classList.remove("calc-result--stale"));
  }
}

export function clearFieldErrors(section) {
  for (const slot of section.querySelectorAll(".calc-error")) slot.textContent = "";
  for (const control of section.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
}

export function showRefusal(section, form, { errors = {}, message = "" }, slotId) {
  // Each message beside its field; slotId(name, control) names the element that holds it.
  // Returns whether a field holds one, and the reason to show in the status line: the
  // refusal's own message and any message no field on screen could hold.
  const unplaced = [];
  for (const [name, text] of Object.entries(errors)) {
    const control = form.querySelector(named(name));
    const id = slotId(name, control);
    const slot = id && section.querySelector("#" + CSS.escape(id));
    if (slot && !slot.closest("[hidden]")) {
      slot.textContent = text;
      control?.setAttribute("aria-invalid", "true");
    } else unplaced.push(text);
  }
  const atField = unplaced.length < Object.keys(errors).length;
  return { atField, reason: [message, ...unplaced].filter(Boolean).join(" ") };
}

// A refused or failed answer: the figures shown are the last answer, and nothing computes
// until the inputs change. Its out-of-date mark says where to look: at the marked field, or,
// where no field is the cause, at the reason itself, which `labelled` (the element that
// bears the mark) holds as text in data-reason for the stylesheet to show.
export function markRefused(element, labelled, { atField, reason }) {
  element.classList.add(atField ? "calc-result--refused" : "calc-result--unanswered");
  if (!atField && labelled) labelled.dataset.reason = reason || "not answered";
}

export function unmarkRefused(element) {
  element.classList.remove("calc-result--refused", "calc-result--unanswered");
}

export function markFirstLiveResult() {
  // When Python first answered on this page (User Timing; the benchmark reads it).
  if (!performance.getEntriesByName("calc-first-live-result").length) {
    performance.mark("calc-first-live-result");
  }
}

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

export function addCopyLink(section) {
  if (section.querySelector(".calc-copy")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "calc-copy";
  button.textContent = "Copy link";
  const note = document.createElement("span");
  note.className = "calc-copied";
  note.setAttribute("role", "status");
  button.addEventListener("click", async () => {
    const address = location.href;
    let copied = false;
    try {
      await navigator.clipboard.writeText(address);
      copied = true;
    } catch {
      // No clipboard API (an insecure origin, an old browser): a selected field the
      // reader copies from, which also serves the old execCommand route.
      copied = copyByHand(address);
    }
    note.textContent = copied ? "Copied" : "Select the address to copy it";
    clearTimeout(note.timer);
    note.timer = setTimeout(() => (note.textContent = ""), 2500);
  });
  const tools = document.createElement("div");
  tools.className = "calc-tools";
  tools.append(button, note);
  // Beside the widget's own heading; under the form of one the page's heading names.
  const title = section.querySelector(":scope > h2");
  if (title) title.after(tools);
  else section.querySelector("form").after(tools);
}

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
