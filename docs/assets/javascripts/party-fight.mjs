// The fight page keeps the party: its named party rows, as the members of the form's
// system, and offers it back ("Fill in the party"), with "Forget" and its "Undo".

import { button, fill, offered, otherSystems, systemOf, titleOf } from "./party-choices.mjs";
import { MAX_MEMBERS, STATS, forSystem, keep, keptParty, rollsOf } from "./party-store.mjs";
import { NAME_LENGTH } from "./rules-core-limits.mjs";

/**
 * @typedef {import("./party-store.mjs").Member} Member
 * @typedef {import("./party-store.mjs").Stat} Stat
 * @typedef {{row: number, side?: string, count?: string, name?: string} & Partial<Record<Stat, string>>} Row
 *   One combatant row of the fight's form: its number, each field's value by its name.
 */

export class FightParty {
  /**
   * @param {Element} section
   * @param {HTMLFormElement} form
   */
  constructor(section, form) {
    this.form = form;
    /** @type {Member[] | null} what "Forget" forgot, offered back until something is kept */
    this.forgotten = null;
    /** @type {string | undefined} what the note says, as JSON */
    this.shown = undefined;
    // The note is built in above the form, saying what it says while nothing is kept
    // (hooks/pages/calculators.py): it takes its room as the page arrives.
    this.note = /** @type {HTMLElement} */ (section.querySelector(".calc-party"));
    /** @type {Node[]} what the note says while nothing is kept */
    this.unkept = [...this.note.childNodes].map((node) => node.cloneNode(true));
    form.addEventListener("input", (event) => this.onEdit(event));
    form.addEventListener("change", (event) => this.onEdit(event));
    this.show();
  }

  /** @returns {Row[]} */
  rows() {
    // The form's combatant rows, each field's value by its name without the row's prefix.
    const rows = [];
    for (let row = 1; this.form.querySelector(`[name="c${row}_count"]`); row++) {
      /** @type {Row & Record<string, string | number>} */
      const values = { row };
      /** @type {NodeListOf<HTMLInputElement | HTMLSelectElement>} */
      const controls = this.form.querySelectorAll(`[name^="c${row}_"]`);
      for (const control of controls) {
        values[control.name.slice(`c${row}_`.length)] = control.value.trim();
      }
      rows.push(values);
    }
    return rows;
  }

  /** @returns {Member[]} */
  namedParty() {
    // Each row's numbers, kept for the form's system, and the check and save bonuses the
    // checks page keeps for a member of that name: the rows rewrite this system's members,
    // never drop those. A member being renamed (a letter at a time: "Mira", "Mir",
    // "Miranda") keeps them too: a row whose name no member has takes those of the member
    // kept in its place, if no row has that name now.
    const inFight = (/** @type {Row} */ row) => row.side === "party" && row.name && Number(row.count) >= 1;
    const system = systemOf(this.form);
    const saved = keptParty().filter((member) => forSystem(member, system));
    const rolls = new Map();
    for (const member of saved) {
      if (!rolls.has(member.name)) rolls.set(member.name, member);
    }
    const rows = this.rows().filter(inFight);
    const names = rows.map((row) => /** @type {string} */ (row.name).slice(0, NAME_LENGTH));
    const named = new Set(names.map((name) => name.trim()));
    return rows.map((row, place) => {
      const name = names[place];
      const renamed = saved[place] && !named.has(saved[place].name) ? saved[place] : {};
      return /** @type {Member} */ ({
        name,
        ...(system === undefined ? {} : { system }),
        ...Object.fromEntries(STATS.map((stat) => [stat, row[stat] ?? ""])),
        ...rollsOf(rolls.get(name.trim()) ?? renamed),
      });
    });
  }

  /** @param {Event} event */
  onEdit(event) {
    // An edit of a party row (or of a row's side) keeps the party's named rows as they now
    // are, as the members of the form's system: those kept for other systems stay as they
    // are. An edit of an opponent, or a party without names (the form as built), leaves
    // what is kept alone: only "Forget" forgets it. Another system chosen is shown.
    const target = /** @type {HTMLInputElement} */ (event.target);
    if (target.name === "system") return this.show();
    const edited = /^c(\d+)_(.*)$/.exec(target.name ?? "");
    if (!edited) return;
    const [, row, field] = edited;
    const side = /** @type {HTMLSelectElement | null} */ (this.form.querySelector(`[name="c${row}_side"]`))?.value;
    const party = this.namedParty();
    if ((side === "party" || field === "side") && party.length) {
      const system = systemOf(this.form);
      keep([...party, ...keptParty().filter((member) => !forSystem(member, system))]);
    }
    this.show();
  }

  /** @param {string} [said] */
  show(said = "") {
    const kept = keptParty();
    const system = systemOf(this.form);
    const saved = kept.filter((member) => forSystem(member, system)).slice(0, MAX_MEMBERS);
    const others = kept.filter((member) => !forSystem(member, system));
    // Built anew only when what it says changes: a box's change event (its blur, as a tap
    // on "Forget" begins) would otherwise replace the button under the finger, and the tap
    // would be lost.
    const offersFill = !this.rows().some((row) => row.side === "party" && row.name);
    const names = (/** @type {Member[]} */ members) => members.map((member) => member.name).join(", ");
    const elsewhere = otherSystems(this.form, others).map((title) => {
      const ofTitle = others.filter((member) => titleOf(this.form, member.system) === title);
      return `For ${title}: ${names(ofTitle)}.`;
    });
    // What "Forget" forgot, offered back until something is kept again.
    if (kept.length) this.forgotten = null;
    const shown = JSON.stringify([names(saved), elsewhere, offersFill, said, this.forgotten]);
    if (shown === this.shown) return;
    this.shown = shown;
    const line = document.createElement("p");
    if (!kept.length && this.forgotten) {
      const forgotten = this.forgotten;
      line.append(`Forgotten on this device: ${names(forgotten)}. `);
      line.append(
        button("Undo", () => {
          keep(forgotten);
          this.show();
        }),
      );
      this.note.replaceChildren(line);
      return;
    }
    if (!kept.length) {
      this.note.replaceChildren(...this.unkept.map((node) => node.cloneNode(true)));
      return;
    }
    // This system's members first; those of the others named by their systems, kept as
    // they are when this system's rows are; "Forget" forgets every system's.
    line.append(
      saved.length
        ? `Kept on this device: ${names(saved)}. `
        : "Named party rows are kept on this device, for each system. ",
    );
    if (elsewhere.length) line.append(`${elsewhere.join(" ")} `);
    // Forgotten at once, and offered back ("Undo"); a quiet link after the names, below
    // the party's own button.
    const forget = button(elsewhere.length ? "Forget all" : "Forget", () => {
      this.forgotten = kept;
      keep([]);
      this.show();
    });
    forget.className = "calc-party-forget";
    line.append(forget);
    this.note.replaceChildren(line);
    // A form without the party's names (as built, or another table's link) offers it, first.
    if (offersFill && saved.length) {
      const fill = button("Fill in the party", () => this.fillParty(offered(this.form)));
      fill.classList.add("calc-party-fill");
      this.note.prepend(fill);
    }
    if (said) {
      const told = document.createElement("p");
      told.className = "calc-party-said";
      told.textContent = said;
      this.note.append(told);
    }
  }

  /** @param {Member[]} saved */
  fillParty(saved) {
    // The party first, one row a member, then the opponents' rows as they were; the rows
    // left over are emptied as the form has them when built (a count of 0).
    const rows = this.rows();
    const opponents = rows.filter((row) => row.side === "opponents" && Number(row.count) >= 1);
    const room = Math.max(rows.length - opponents.length, 0);
    const members = saved.slice(0, room).map((member) => ({ ...member, side: "party", count: "1" }));
    /** @type {Record<string, string | number | undefined>[]} */
    const laid = [...members, ...opponents];
    /** @type {Record<string, string | number>} */
    const values = {};
    rows.forEach(({ row }, index) => {
      const entry = laid[index] ?? { side: "opponents", count: "0" };
      for (const field of ["side", "count", "name", ...STATS]) {
        values[`c${row}_${field}`] = entry[field] || (field === "attacks" ? "1" : "");
      }
    });
    fill(this.form, /** @type {Record<string, string>} */ (values));
    const left = saved.length - members.length;
    this.show(left ? `${left} not filled in: the form has ${rows.length} rows.` : "");
  }
}
