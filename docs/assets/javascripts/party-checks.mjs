// The checks page offers the party as who rolls, and keeps each member's check and save
// bonuses as typed there.

import { button, choiceGroup, fill, keptElsewhere, offered, systemOf } from "./party-choices.mjs";
import { ROLLS, forSystem, keep, keptParty } from "./party-store.mjs";
import { VALUE_LENGTH } from "./rules-core-limits.mjs";

/** @typedef {import("./party-store.mjs").Roll} Roll */

/**
 * @param {string} name
 * @param {string} roll
 * @param {string} state
 */
function notKept(name, roll, state) {
  return `${name}'s ${roll} bonus ${state}: type it here and it is kept for ${name}.`;
}

export class CheckChoices {
  // "Roll for: Mira Bram": a tap fills Bonus with the bonus kept for that member and the
  // roll chosen (save or check), or, where none is kept, says so beside Bonus and leaves it
  // to be typed: typed there while the member is chosen, it is kept for that member and roll
  // (the member's system stays as it was kept). Only the members of the form's system are
  // offered: another system chosen, a member chosen that is not of it is released.
  /**
   * @param {Element} _section
   * @param {HTMLFormElement} form
   */
  constructor(_section, form) {
    this.form = form;
    // Found, or nothing is bound: every method below runs once both are.
    this.bonus = /** @type {HTMLInputElement} */ (form.querySelector('[name="bonus"]'));
    this.roll = /** @type {HTMLSelectElement} */ (form.querySelector('[name="roll"]'));
    if (!keptParty().length || !this.bonus || !this.roll) return;
    /** @type {string | null} */
    this.chosen = null; // the name of the member chosen
    /** @type {{name: string, choice: HTMLButtonElement}[]} */
    this.choices = [];
    this.rollShown = this.roll.value;
    this.filling = false;
    /** @type {HTMLDivElement} */
    this.block = document.createElement("div");
    this.block.className = "calc-party";
    form.before(this.block);
    this.show();
    const onSystem = (/** @type {Event} */ event) =>
      /** @type {HTMLInputElement} */ (event.target).name === "system" && this.onSystem();
    form.addEventListener("input", onSystem);
    form.addEventListener("change", onSystem);
    // What is said about the chosen member's bonus, beside the Bonus field (its hint's
    // row, which that field has free), and read with it by a screen reader.
    /** @type {HTMLSpanElement} */
    this.said = document.createElement("span");
    this.said.className = "calc-hint calc-party-beside";
    this.said.id = `${this.bonus.id}-party`;
    this.said.setAttribute("aria-live", "polite");
    this.said.hidden = true;
    this.bonus.closest(".calc-field")?.append(this.said);
    const described = this.bonus.getAttribute("aria-describedby");
    const describedBy = [described, this.said.id].filter(Boolean).join(" ");
    this.bonus.setAttribute("aria-describedby", describedBy);
    this.bonus.addEventListener("input", (event) => this.onTyped(event));
    this.roll.addEventListener("change", () => this.onRoll());
    this.roll.addEventListener("input", () => this.onRoll());
    // Where the system has group checks: the other members' kept check bonuses, offered
    // beside that field when every one of them has one, and said to be missing otherwise.
    /** @type {HTMLElement | null} */
    this.groupField = form.querySelector('[name="group"]')?.closest(".calc-field") ?? null;
    if (this.groupField) {
      /** @type {string | undefined} the others offered, as JSON */
      this.othersShown = undefined;
      /** @type {HTMLDivElement | undefined} */
      this.others = document.createElement("div");
      this.others.className = "calc-party calc-party-others";
      this.others.hidden = true;
      this.groupField.after(this.others);
      form.addEventListener("input", () => this.offerOthers());
      form.addEventListener("change", () => this.offerOthers());
    }
  }

  show() {
    // "Roll for" and the members of the form's system, or the line saying which systems
    // the party is kept for.
    /** @type {string | undefined} */
    this.system = systemOf(this.form);
    const saved = offered(this.form);
    this.choices = [];
    if (!saved.length) return this.block.replaceChildren(keptElsewhere(this.form));
    const { group, choices } = choiceGroup("Roll for", "who rolls", saved, (index) =>
      this.choose(saved[index].name),
    );
    this.choices = choices.map((choice, index) => ({ name: saved[index].name, choice }));
    this.block.replaceChildren(group);
  }

  onSystem() {
    // Another system chosen: its members offered, and the member chosen released unless it
    // is one of them (one kept before members had a system is of every system).
    if (systemOf(this.form) === this.system) return;
    this.show();
    if (this.chosen !== null && !this.member()) {
      this.chosen = null;
      this.say("");
    }
    this.markChosen();
    this.onRoll(); // the switch may have changed the roll too
  }

  offerOthers() {
    // Only for a check of a member chosen, with the group field on screen for the system.
    if (!this.others) return;
    const groupField = /** @type {HTMLElement} */ (this.groupField); // there, as `others` is
    const shown = this.chosen !== null && this.roll.value === "check" && !groupField.hidden;
    const others = shown ? offered(this.form).filter((member) => member.name !== this.chosen) : [];
    const key = JSON.stringify(others.map((member) => [member.name, member.check ?? null]));
    if (key === this.othersShown) return; // unchanged: its button stays under the finger
    this.othersShown = key;
    this.others.hidden = !others.length;
    const line = document.createElement("p");
    line.className = "calc-party-beside";
    const missing = others.filter((member) => !member.check);
    if (missing.length) {
      const names = missing.map((member) => member.name).join(", ");
      line.textContent =
        `Not filled in from the party: no check bonus is kept for ${names} ` +
        "(choose each above and type it in Bonus).";
      this.others.replaceChildren(line);
      return;
    }
    const listed = others.map((member) => `${member.name} ${member.check}`).join(", ");
    line.append(`The others' kept check bonuses: ${listed}. `);
    const group = others.map((member) => member.check).join(", ");
    line.append(button("Fill in", () => fill(this.form, { group })));
    this.others.replaceChildren(line);
  }

  member() {
    // The chosen member as kept now (another page may have changed it since), if it is
    // offered for the form's system.
    return offered(this.form).find((member) => member.name === this.chosen) ?? null;
  }

  /** @param {string} name */
  choose(name) {
    // A tap on the member chosen releases it: what is typed then is no one's.
    if (this.chosen === name) {
      this.chosen = null;
      this.say("");
      this.markChosen();
      return;
    }
    this.chosen = name;
    this.markChosen();
    this.offer();
  }

  offer() {
    // The chosen member's kept bonus for the roll on screen into Bonus, or the words
    // saying it is not kept, with Bonus ready to take it.
    const member = this.member();
    if (!member) {
      this.chosen = null;
      this.markChosen();
      this.say("");
      return;
    }
    const roll = /** @type {Roll} */ (this.roll.value); // "save" or "check", as the words say it
    if (!ROLLS.includes(roll)) return this.say("");
    const kept = member[roll];
    if (kept) {
      this.filling = true;
      try {
        fill(this.form, { bonus: kept });
      } finally {
        this.filling = false;
      }
      const { name } = member;
      this.say(`${name}'s ${roll} bonus, as kept. Typed over, it is kept for ${name}.`);
      return;
    }
    this.say(notKept(member.name, roll, "is not kept yet"));
    this.bonus.focus();
    this.bonus.select(); // what is typed replaces the number there, another's or none
  }

  /** @param {Event} event */
  onTyped(event) {
    // The reader's own typing in Bonus, a member chosen: kept for that member and roll.
    // (The events of a fill, this one's or Back's, are not typing.)
    if (this.filling || !event.isTrusted || this.chosen === null) return;
    const saved = keptParty(); // every system's, written back with this one member changed
    const system = systemOf(this.form);
    const member = saved.find((one) => one.name === this.chosen && forSystem(one, system));
    if (!member) return;
    const roll = /** @type {Roll} */ (this.roll.value);
    if (!ROLLS.includes(roll)) return;
    const typed = this.bonus.value.trim().slice(0, VALUE_LENGTH);
    if (typed) member[roll] = typed;
    else delete member[roll];
    keep(saved);
    this.say(
      typed ? `Kept as ${member.name}'s ${roll} bonus.` : notKept(member.name, roll, "is not kept"),
    );
  }

  onRoll() {
    // Save or check chosen anew: the chosen member's other bonus, or the words for it.
    if (this.roll.value === this.rollShown) return;
    this.rollShown = this.roll.value;
    if (this.chosen !== null) this.offer();
    this.offerOthers();
  }

  /** @param {string} text */
  say(text) {
    this.said.textContent = text; // names are text, never markup
    this.said.hidden = !text;
  }

  markChosen() {
    for (const { name, choice } of this.choices) {
      choice.setAttribute("aria-pressed", String(name === this.chosen));
    }
    this.offerOthers();
  }
}
