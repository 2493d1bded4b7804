// A switch of system on a calculator's form. Each system has its own situation boxes (its
// own names and labels, from its rules data) and its own set of fields; a field several
// systems have is one control. What the reader set and the new system has too carries
// over: a situation of the same name is ticked again among the new system's boxes, and a
// shared field keeps its value as it is. What the new system lacks is dropped (unticked,
// set back to the form's default), so that coming back does not bring back a value
// nobody sees, and said so beside the system's select.

import { initialValue } from "./calculator-form.mjs";

/** @typedef {import("./calculator-form.mjs").Control} Control */

// Whether an element of the form (a field, a situation's tile) is one of `system`'s.
/**
 * @param {Element} element
 * @param {string} system
 */
export function ofSystem(element, system) {
  /** @type {HTMLElement | null} */
  const owner = element.closest("[data-systems]");
  const systems = owner?.dataset.systems;
  return !systems || systems.split(" ").includes(system);
}

/** @param {Control} control */
function valueOf(control) {
  return control.type === "checkbox" ? (/** @type {HTMLInputElement} */ (control).checked ? "on" : "") : control.value;
}

/** @param {string} label */
function quoted(label) {
  return `‘${label.trim()}’`;
}

/** @param {Control} control */
function shownValue(control) {
  if (control.tagName === "SELECT") {
    return /** @type {HTMLSelectElement} */ (control).selectedOptions[0]?.textContent.trim() ?? control.value;
  }
  return control.type === "checkbox" ? "ticked" : control.value;
}

// A situation's tile as its label says it: its own words, not the question it may ask
// beside them (situation-questions.mjs's "Depends on: ...").
/** @param {Element} box */
function tileLabel(box) {
  const label = /** @type {HTMLLabelElement} */ (box.closest("label"));
  return [...label.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join("");
}

/** @param {Element} field */
function labelOf(field) {
  return (field.querySelector(".calc-label") ?? field.querySelector(".calc-check"))?.textContent?.trim() ?? "";
}

// Returns {kept, dropped}: what carried over and what was dropped, each as its label quoted.
/**
 * @param {HTMLFormElement} form
 * @param {string} from
 * @param {string} to
 * @returns {Carried}
 *
 * @typedef {{kept: string[], dropped: string[]}} Carried
 */
export function carryOver(form, from, to) {
  /** @type {string[]} */
  const kept = [];
  /** @type {string[]} */
  const dropped = [];
  for (const field of form.querySelectorAll(".calc-field--situations")) {
    /** @type {NodeListOf<HTMLInputElement>} */
    const situations = field.querySelectorAll("[data-situation]");
    const boxes = [...situations];
    /** @type {Set<string | undefined>} */
    const chosen = new Set();
    for (const box of boxes) {
      if (!box.checked || !ofSystem(box, from) || ofSystem(box, to)) continue;
      box.checked = false;
      chosen.add(box.dataset.situation);
      if (!boxes.some((other) => other.dataset.situation === box.dataset.situation && ofSystem(other, to))) {
        dropped.push(quoted(tileLabel(box)));
      }
    }
    for (const box of boxes.filter((box) => ofSystem(box, to))) {
      box.checked = chosen.has(box.dataset.situation);
      if (!box.checked) continue;
      kept.push(quoted(tileLabel(box)));
      box.closest("details.calc-side")?.setAttribute("open", ""); // what is kept is shown
    }
  }
  for (const field of form.querySelectorAll(".calc-field:not(.calc-field--situations)")) {
    /** @type {Control | null} */
    const control = field.querySelector("[name]");
    if (!control || control.name === "system" || !ofSystem(field, from)) continue;
    if (valueOf(control) === initialValue(control)) continue; // nothing set: nothing lost
    const choice = /** @type {HTMLSelectElement} */ (control).selectedOptions?.[0];
    if (ofSystem(field, to) && (!choice || ofSystem(choice, to))) {
      // A field of some systems only, which both have: its value is said to be kept (a
      // field every system has, the attack bonus, goes without saying).
      if (field.closest("[data-systems]")) kept.push(`${quoted(labelOf(field))} ${shownValue(control)}`);
      continue;
    }
    // The field, or the choice made in it (an attack type the new system's text lacks).
    dropped.push(ofSystem(field, to) ? `${quoted(labelOf(field))} ${shownValue(control)}` : quoted(labelOf(field)));
    const box = /** @type {HTMLInputElement} */ (control);
    if (control.type === "checkbox") box.checked = box.defaultChecked;
    else control.value = /** @type {string} */ (initialValue(control));
  }
  return { kept, dropped };
}

// Said under the system's select, where the reader has just chosen: in view on a phone.
/**
 * @param {HTMLFormElement} form
 * @param {string} system
 * @param {Carried} carried
 */
export function sayCarried(form, system, { kept, dropped }) {
  form.querySelector(".calc-switch-note")?.remove();
  if (!kept.length && !dropped.length) return;
  const select = /** @type {HTMLSelectElement} */ (form.querySelector('[name="system"]'));
  const title = select.selectedOptions[0]?.dataset.short ?? select.selectedOptions[0]?.textContent ?? system;
  const sentences = [];
  if (dropped.length) sentences.push(`${title} has no ${dropped.join(", ")}: dropped.`);
  if (kept.length) sentences.push(`Kept: ${kept.join(", ")}.`);
  const note = document.createElement("p");
  note.className = "calc-switch-note";
  note.setAttribute("role", "status");
  note.textContent = sentences.join(" "); // labels from the page: text, never markup
  /** @type {Element} */ (select.closest(".calc-field")).after(note);
}
