// What the pages that offer the party share: the system a form has chosen and its title,
// the members offered for it, the line saying which systems the party is kept for when none
// of it is for this one, the fields filled as if typed, and the rows of choices.
//
// Filling goes through the form's own fields, each followed by the input event a reader's
// typing makes: the live answer, the address and what Back restores follow as if typed.
// Nothing is guessed: a field is filled only with what was typed for that member and that
// roll or stat (a fight row holds no check or save bonus, so the checks page fills none from it).

import { MAX_MEMBERS, forSystem, keptParty } from "./party-store.mjs";

/** @typedef {import("./party-store.mjs").Member} Member */

/**
 * @param {HTMLFormElement} form
 * @returns {string | undefined}
 */
export function systemOf(form) {
  // The system the form has chosen now.
  return /** @type {HTMLSelectElement | null} */ (form.querySelector('[name="system"]'))?.value;
}

/** @param {HTMLFormElement} form */
export function offered(form) {
  // The members a page offers: those kept for the system its form has chosen.
  const system = systemOf(form);
  return keptParty().filter((member) => forSystem(member, system)).slice(0, MAX_MEMBERS);
}

/**
 * @param {HTMLFormElement} form
 * @param {string | undefined} system
 */
export function titleOf(form, system) {
  // A system as the form's select names it (its short title, as calculator-switch.mjs
  // says it), never its value; one the select lacks is "another system".
  /** @type {HTMLSelectElement | null} */
  const select = form.querySelector('[name="system"]');
  const option = select && [...select.options].find((one) => one.value === system);
  return option ? (option.dataset.short ?? option.textContent.trim()) : "another system";
}

/**
 * @param {HTMLFormElement} form
 * @param {Member[]} members
 */
export function otherSystems(form, members) {
  // The titles of the systems these members are kept for, other than the form's, in the
  // select's order (one the select lacks last), each once.
  /** @type {HTMLSelectElement | null} */
  const select = form.querySelector('[name="system"]');
  const order = select ? [...select.options].map((option) => option.value) : [];
  const place = (/** @type {string | undefined} */ system) =>
    order.includes(/** @type {string} */ (system)) ? order.indexOf(/** @type {string} */ (system)) : order.length;
  const systems = [...new Set(members.map((member) => member.system))]
    .filter((system) => system !== undefined && system !== systemOf(form))
    .sort((a, b) => place(a) - place(b));
  return [...new Set(systems.map((system) => titleOf(form, system)))];
}

/** @param {string[]} words */
export function listed(words) {
  // "Orcus", "Orcus and 4e Core", "Orcus, 3d6 Combat and 4e Core".
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** @param {HTMLFormElement} form */
export function keptElsewhere(form) {
  // The line said where the offer would be, when every member kept is of another system.
  const line = document.createElement("p");
  line.className = "calc-party-elsewhere";
  line.textContent = `The party kept on this device is for ${listed(otherSystems(form, keptParty()))}.`;
  return line;
}

/**
 * @param {HTMLFormElement} form
 * @param {Record<string, string>} values
 */
export function fill(form, values) {
  // Each field given its value as a reader's typing would: then its input event, once all
  // are set, so the first answer asked for already answers them all.
  const changed = [];
  for (const [name, value] of Object.entries(values)) {
    /** @type {HTMLInputElement | HTMLSelectElement | null} */
    const control = form.querySelector(`[name="${CSS.escape(name)}"]`);
    if (!control || control.value === value) continue;
    control.value = value;
    changed.push(control);
  }
  for (const control of changed) control.dispatchEvent(new Event("input", { bubbles: true }));
}

/**
 * @param {string} text
 * @param {() => void} onTap
 */
export function button(text, onTap) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "calc-party-choice";
  element.textContent = text;
  element.addEventListener("click", onTap);
  return element;
}

// One row of choices, "Attacker: Mira Bram": `title`, then a button per member, each
// pressed or not (aria-pressed), that calls onTap(the member's index). Returns the row and
// its buttons, in the members' order.
/**
 * @param {string} title
 * @param {string} role
 * @param {Member[]} members
 * @param {(index: number) => void} onTap
 */
export function choiceGroup(title, role, members, onTap) {
  const group = document.createElement("div");
  group.className = "calc-party-group";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", `The party as ${role}`);
  const label = document.createElement("span");
  label.className = "calc-party-label";
  label.textContent = title;
  group.append(label);
  const choices = members.map((member, index) => {
    const choice = button(member.name, () => onTap(index));
    choice.setAttribute("aria-pressed", "false");
    choice.title = member.name; // the whole name, where a long one is cut short
    return choice;
  });
  group.append(...choices);
  return { group, choices };
}
