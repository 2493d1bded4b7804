// The party kept on this device: the named party rows a game master enters on the fight
// page, offered as one-tap choices where a calculator takes the same numbers (the attack
// calculator's attacker and target, the fight's party rows, the checks calculator's roller).
//
// Kept in localStorage as one small versioned JSON: {"version": 1, "members": [...]}, each
// member {name, system, bonus, damage, defense, hp, attacks} as the fight's fields hold them
// (strings), and, once typed on the checks page for that member, its check and save
// bonuses {check, save} (strings; a member without them is as valid). An entry that is not
// that, corrupt or of another version, is ignored: the pages work as if nothing were kept.
// Nothing is sent anywhere.
//
// A member's numbers are those of one game system, the fight form's when its row was kept
// (its `system`, the select's value): a page offers only the members kept for the system its
// own form has chosen, follows a change of that choice, and says in one line which systems
// (by the select's own titles) the party is kept for when none of it is for this one. A
// member kept before members had a system has none, and is offered for every system, as it
// was: no system is guessed for it. A member whose system is none of the form's (one since
// taken off the site) is not offered there, and not dropped either: only "Forget" removes it.
//
// Filling goes through the form's own fields, each followed by the input event a reader's
// typing makes: the live answer, the address and what Back restores follow as if typed.
// Nothing is guessed: a field is filled only with what was typed for that member and that
// roll or stat (a fight row holds no check or save bonus, so the checks page fills none from it).
//
// Safety: names are only ever text (textContent, form values), never markup.

import { endAboveDock, headerBottom } from "./calculator-dock.mjs";
import { FIGHT_FORM_ROWS, FIGHT_MAX_ROWS, NAME_LENGTH, VALUE_LENGTH } from "./rules-core-limits.mjs";

/**
 * @typedef {object} Member One member of the party kept, as the fight's fields hold it.
 * @property {string} name
 * @property {string} [system] The form's system when its row was kept (none: kept before
 *   members had one, offered for every system).
 * @property {string} bonus
 * @property {string} damage
 * @property {string} defense
 * @property {string} hp
 * @property {string} attacks
 * @property {string} [check] Kept by the checks page, once typed there.
 * @property {string} [save] Kept by the checks page, once typed there.
 *
 * @typedef {{row: number, side?: string, count?: string, name?: string} & Partial<Record<Stat, string>>} Row
 *   One combatant row of the fight's form: its number, each field's value by its name.
 * @typedef {{name: string, form: HTMLFormElement, section: Element}} Widget A calculator
 *   bound by calculator-widget.mjs.
 */

const STORE = "orr-party";
const VERSION = 1;
const STATS = /** @type {const} */ (["bonus", "damage", "defense", "hp", "attacks"]);
/** @typedef {typeof STATS[number]} Stat */
const ROLLS = /** @type {const} */ (["check", "save"]); // kept by the checks page, each only once typed there
/** @typedef {typeof ROLLS[number]} Roll */
// The fight's most rows, its name field's and any field's longest value are the rules
// core's (rules-core-limits.mjs, written from the Python): the most offered for one system.
const MAX_MEMBERS = FIGHT_MAX_ROWS;
const MAX_KEPT = 10 * MAX_MEMBERS; // the most read back, every system's together
const SYSTEM_LENGTH = 64; // a system's value in the form's select (a slug)

/** @returns {Member[]} */
export function keptParty() {
  // The members kept, every system's, or none when nothing usable is kept.
  /** @type {any} what storage holds, checked below before any of it is used */
  let kept;
  try {
    kept = JSON.parse(/** @type {string} */ (localStorage.getItem(STORE)));
  } catch {
    return []; // storage refused (private mode) or not JSON
  }
  if (!kept || kept.version !== VERSION || !Array.isArray(kept.members)) return [];
  const text = (/** @type {unknown} */ value) => typeof value === "string" && value.length <= VALUE_LENGTH;
  const usable = (/** @type {any} */ member) =>
    member && typeof member === "object" &&
    typeof member.name === "string" && member.name.trim() !== "" &&
    member.name.length <= NAME_LENGTH &&
    STATS.every((stat) => text(member[stat])) &&
    ROLLS.every((roll) => member[roll] === undefined || text(member[roll])) &&
    (member.system === undefined ||
      (typeof member.system === "string" && member.system !== "" &&
        member.system.length <= SYSTEM_LENGTH));
  if (!kept.members.every(usable)) return [];
  return kept.members.slice(0, MAX_KEPT).map((/** @type {Member} */ member) => ({
    name: member.name.trim(),
    ...(member.system === undefined ? {} : { system: member.system }),
    ...Object.fromEntries(STATS.map((stat) => [stat, member[stat]])),
    ...rollsOf(member),
  }));
}

/**
 * @param {HTMLFormElement} form
 * @returns {string | undefined}
 */
function systemOf(form) {
  // The system the form has chosen now.
  return /** @type {HTMLSelectElement | null} */ (form.querySelector('[name="system"]'))?.value;
}

/**
 * @param {Member} member
 * @param {string | undefined} system
 */
function forSystem(member, system) {
  // Kept for that system, or kept before members had one (then for any).
  return member.system === undefined || member.system === system;
}

/** @param {HTMLFormElement} form */
function offered(form) {
  // The members a page offers: those kept for the system its form has chosen.
  const system = systemOf(form);
  return keptParty().filter((member) => forSystem(member, system)).slice(0, MAX_MEMBERS);
}

/**
 * @param {HTMLFormElement} form
 * @param {string | undefined} system
 */
function titleOf(form, system) {
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
function otherSystems(form, members) {
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
function listed(words) {
  // "Orcus", "Orcus and 4e Core", "Orcus, 3d6 Combat and 4e Core".
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** @param {HTMLFormElement} form */
function keptElsewhere(form) {
  // The line said where the offer would be, when every member kept is of another system.
  const line = document.createElement("p");
  line.className = "calc-party-elsewhere";
  line.textContent = `The party kept on this device is for ${listed(otherSystems(form, keptParty()))}.`;
  return line;
}

/**
 * @param {Partial<Member>} member
 * @returns {{check?: string, save?: string}}
 */
function rollsOf(member) {
  // The check and save bonuses kept for a member: those typed (an empty one is none).
  const typed = ROLLS.filter((roll) => member[roll]);
  return Object.fromEntries(typed.map((roll) => [roll, member[roll]]));
}

/** @param {Member[]} members */
function keep(members) {
  try {
    if (members.length) {
      localStorage.setItem(STORE, JSON.stringify({ version: VERSION, members }));
    } else {
      localStorage.removeItem(STORE);
    }
  } catch {
    // Storage refused (private mode, quota): the party is simply not kept.
  }
}

// Each widget on the page ({name, form, section}, the calculators calculator-site.mjs bound):
// the fight keeps and offers the party, the attack calculator offers it, and the checks
// calculator offers its members as who rolls, each only the members of its form's system.
// A fight row holds no check or save bonus, and a wrong number filled in would be worse
// than none: the checks page fills only a bonus typed there for that member and that roll,
// and otherwise says so beside the Bonus field.
/** @param {Iterable<Widget>} widgets */
export function offerParty(widgets) {
  for (const widget of widgets) {
    if (widget.name === "fight") new FightParty(widget.section, widget.form);
    else if (widget.name === "attack") new AttackChoices(widget.section, widget.form);
    else if (widget.name === "check") new CheckChoices(widget.section, widget.form);
    else if (widget.name === "encounter") new EncounterParty(widget.section, widget.form);
  }
}

/**
 * @param {HTMLFormElement} form
 * @param {Record<string, string>} values
 */
function fill(form, values) {
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
function button(text, onTap) {
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
function choiceGroup(title, role, members, onTap) {
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

// ---------------------------------------------------------------------- the fight page

class FightParty {
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

// ---------------------------------------------------------------------- the attack page

class AttackChoices {
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

// ---------------------------------------------------------------------- the checks page

/**
 * @param {string} name
 * @param {string} roll
 * @param {string} state
 */
function notKept(name, roll, state) {
  return `${name}'s ${roll} bonus ${state}: type it here and it is kept for ${name}.`;
}

class CheckChoices {
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

// ---------------------------------------------------------------------- the encounter page

const FORM_ROWS = FIGHT_FORM_ROWS; // the fight form's rows (rules-core-limits.mjs)

class EncounterParty {
  // The encounter's "Fight odds for these monsters" (rules_core/calculators/encounter.py)
  // leaves the party's figures blank, for the fight page to ask for, never the fight form's
  // examples. Where a party is kept on this device for the encounter's system, the link
  // takes it instead: a row a member, the monsters' rows after them, and it says whom. The
  // party is in the fight's address, so the link opens, and a copy of it reproduces, the
  // fight of this party.
  /**
   * @param {Element} section
   * @param {HTMLFormElement} form
   */
  constructor(section, form) {
    this.form = form;
    this.result = section.querySelector(".calc-result");
    if (!this.result) return;
    // Each answer is new markup with the link as Python wrote it: rewritten as it comes.
    new MutationObserver(() => this.rewrite()).observe(this.result, { childList: true, subtree: true });
    this.rewrite();
  }

  rewrite() {
    /** @type {HTMLAnchorElement | null} */
    const link = /** @type {Element} */ (this.result).querySelector("a.calc-fight-link");
    if (!link || link.dataset.party !== undefined) return; // none, or rewritten already
    const members = offered(this.form);
    if (!members.length) return;
    const address = new URL(link.href, location.href);
    const given = new URLSearchParams(address.search);
    const budgeted = Number(given.get("c1_count")); // the characters the budget counted
    const monsters = [];
    for (let row = 1; given.has(`c${row}_count`); row++) {
      if (given.get(`c${row}_side`) !== "opponents" || !(Number(given.get(`c${row}_count`)) >= 1)) continue;
      monsters.push({ side: "opponents", count: given.get(`c${row}_count`) });
    }
    const room = Math.max(MAX_MEMBERS - monsters.length, 0);
    const fighting = members.slice(0, room);
    /** @type {Record<string, string | null | undefined>[]} */
    const rows = [
      ...fighting.map((member) => ({ ...member, side: "party", count: "1", attacks: member.attacks || "1" })),
      ...monsters,
    ];
    const fields = ["side", "count", "name", ...STATS];
    const params = new URLSearchParams({ system: given.get("system") ?? systemOf(this.form) ?? "" });
    rows.forEach((entry, index) => {
      for (const field of fields) params.set(`c${index + 1}_${field}`, entry[field] ?? "");
    });
    for (let row = rows.length + 1; row <= FORM_ROWS; row++) params.set(`c${row}_count`, "0");
    address.search = params.toString();
    link.href = address.href;
    link.dataset.party = "kept";
    const names = listed(fighting.map((member) => member.name));
    link.textContent = `Fight odds for these monsters against ${names} (the party kept on this device)`;
    const note = link.parentElement?.querySelector(".calc-fight-link-note");
    if (!note) return;
    // What differs from the budget above, said beside the link: who is left out, and how
    // many characters the budget counted.
    const said = [];
    if (fighting.length < members.length) {
      said.push(`${members.length - fighting.length} not in it: the fight takes ${MAX_MEMBERS} rows`);
    }
    if (budgeted && budgeted !== fighting.length) said.push(`the budget above is for ${budgeted} characters`);
    said.push("the monsters' attacks and hit points are entered there");
    note.textContent = `(${said.join("; ")})`;
  }
}
