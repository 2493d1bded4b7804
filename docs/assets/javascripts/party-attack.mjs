// The attack page offers the party as who attacks and who is the target: a tap fills the
// attacker's bonus and damage, or the target's defense.

import { endAboveDock, headerBottom } from "./calculator-dock.mjs";
import { choiceGroup, fill, keptElsewhere, offered, systemOf } from "./party-choices.mjs";
import { keptParty } from "./party-store.mjs";

/** @typedef {import("./party-store.mjs").Member} Member */

export class AttackChoices {
  /**
   * @param {Element} _section
   * @param {HTMLFormElement} form
   */
  constructor(_section, form) {
    this.form = form;
    if (!keptParty().length) return;
    this.block = document.createElement("div");
    this.block.className = "calc-party";
    /** @type {{choice: HTMLButtonElement, values: Record<string, string>, tapped: boolean}[]} */
    this.choices = [];
    form.before(this.block);
    this.show();
    const onEdit = (/** @type {Event} */ event) =>
      /** @type {HTMLInputElement} */ (event.target).name === "system" ? this.show() : this.markChosen();
    form.addEventListener("input", onEdit);
    form.addEventListener("change", onEdit);
  }

  show() {
    // The members of the form's system, anew when it changes; none, the line saying which
    // systems the party is kept for.
    const system = systemOf(this.form);
    if (system === this.system) return;
    /** @type {string | undefined} the system whose members are offered */
    this.system = system;
    const saved = offered(this.form);
    this.choices = [];
    const block = /** @type {HTMLDivElement} */ (this.block); // shown only where a party is kept
    if (!saved.length) return block.replaceChildren(keptElsewhere(this.form));
    block.replaceChildren(
      this.group("Attacker", saved, (member) => ({ bonus: member.bonus, damage: member.damage }),
        (filled) => this.openTarget(filled)),
      this.group("Target", saved, (member) => ({ defense: member.defense })),
    );
  }

  /** @param {Element[]} filled the fields filled, as on screen */
  openTarget(filled) {
    // Who attacks is chosen: what is asked next is the target's state ("can Mira hit the
    // prone orc?"), so its situations unfold, each one tap away. What was filled stays on
    // the screen, the answer docked below it (on a phone): the page moves up only so far
    // as to bring the situations into view without taking the filled fields off it.
    /** @type {NodeListOf<HTMLDetailsElement>} */
    const folds = this.form.querySelectorAll('details.calc-side[data-side="target"]');
    const side = [...folds]
      .find((fold) => !fold.hidden);
    if (!side) return;
    side.setAttribute("open", "");
    const end = endAboveDock(this.form.closest(".calc")?.querySelector(".calc-headline"));
    const summary = /** @type {HTMLElement} */ (side.querySelector("summary")).getBoundingClientRect();
    if (summary.bottom <= end) return; // on the screen already
    const top = headerBottom() + 8;
    const fields = filled.map((control) => control.closest(".calc-field") ?? control);
    const firstFilled = Math.min(...fields.map((field) => field.getBoundingClientRect().top));
    const by = Math.min(summary.top - top, firstFilled - top);
    if (by > 0) scrollBy({ top: by });
  }

  /**
   * @param {string} title
   * @param {Member[]} saved
   * @param {(member: Member) => Record<string, string>} valuesOf
   * @param {(filled: Element[]) => void} [then]
   */
  group(title, saved, valuesOf, then = () => {}) {
    // One row of choices: "Attacker: Mira Bram", each a tap that fills its fields.
    const { group, choices } = choiceGroup(title, `the ${title.toLowerCase()}`, saved, (index) => {
      const chosen = offers[index];
      fill(this.form, chosen.values);
      chosen.tapped = true;
      this.markChosen();
      then(
        /** @type {Element[]} */ (
          Object.keys(chosen.values)
            .map((name) => this.form.querySelector(`[name="${name}"]`))
            .filter((control) => control && !control.closest("[hidden]"))
        ),
      );
    });
    const offers = choices.map((choice, index) => ({ choice, values: valuesOf(saved[index]), tapped: false }));
    this.choices.push(...offers);
    return group;
  }

  markChosen() {
    // A member tapped is shown pressed while the form holds its numbers: a number typed
    // over them, or another member tapped, releases it. (A form that merely happens to
    // hold a member's defense, as built, presses nothing.)
    for (const chosen of this.choices) {
      const holds = Object.entries(chosen.values).every(
        ([name, value]) =>
          /** @type {HTMLInputElement | null} */ (this.form.querySelector(`[name="${name}"]`))?.value.trim() === value,
      );
      chosen.tapped &&= holds;
      chosen.choice.setAttribute("aria-pressed", String(chosen.tapped));
    }
  }
}
