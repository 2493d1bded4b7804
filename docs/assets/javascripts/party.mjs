// The party kept on this device: the named party rows a game master enters on the fight
// page, offered as one-tap choices where a calculator takes the same numbers (the attack
// calculator's attacker and target, the fight's party rows).
//
// Kept in localStorage as one small versioned JSON: {"version": 1, "members": [...]}, each
// member {name, bonus, damage, defense, hp, attacks} as the fight's fields hold them
// (strings). An entry that is not that, corrupt or of another version, is ignored: the
// pages work as if nothing were kept. Nothing is sent anywhere.
//
// Filling goes through the form's own fields, each followed by the input event a reader's
// typing makes: the live answer, the address and what Back restores follow as if typed.
//
// Safety: names are only ever text (textContent, form values), never markup.

const STORE = "orr-party";
const VERSION = 1;
const STATS = ["bonus", "damage", "defense", "hp", "attacks"];
const MAX_MEMBERS = 12; // the fight's most rows
const NAME_LENGTH = 40; // the fight's name field's (rules_core/calculators/fight.py)
const VALUE_LENGTH = 200; // any field's (rules_core/fields.py)

export function savedParty() {
  // The members kept, or none when nothing usable is kept.
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(STORE));
  } catch {
    return []; // storage refused (private mode) or not JSON
  }
  if (!kept || kept.version !== VERSION || !Array.isArray(kept.members)) return [];
  const usable = (member) =>
    member && typeof member === "object" &&
    typeof member.name === "string" && member.name.trim() !== "" &&
    member.name.length <= NAME_LENGTH &&
    STATS.every((stat) => typeof member[stat] === "string" && member[stat].length <= VALUE_LENGTH);
  if (!kept.members.every(usable)) return [];
  return kept.members.slice(0, MAX_MEMBERS).map((member) => ({
    name: member.name.trim(),
    ...Object.fromEntries(STATS.map((stat) => [stat, member[stat]])),
  }));
}

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

// Each widget on the page ({name, form, section}, the calculators bound by calculators.mjs):
// the fight keeps and offers the party, the attack calculator offers it. The checks
// calculator is offered nothing: a fight row holds no check or save bonus, and a wrong
// number filled in would be worse than none.
export function offerParty(widgets) {
  for (const widget of widgets) {
    if (widget.name === "fight") new FightParty(widget.section, widget.form);
    else if (widget.name === "attack") new AttackChoices(widget.section, widget.form);
  }
}

function fill(form, values) {
  // Each field given its value as a reader's typing would: then its input event, once all
  // are set, so the first answer asked for already answers them all.
  const changed = [];
  for (const [name, value] of Object.entries(values)) {
    const control = form.querySelector(`[name="${CSS.escape(name)}"]`);
    if (!control || control.value === value) continue;
    control.value = value;
    changed.push(control);
  }
  for (const control of changed) control.dispatchEvent(new Event("input", { bubbles: true }));
}

function button(text, onTap) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = "calc-party-choice";
  element.textContent = text;
  element.addEventListener("click", onTap);
  return element;
}

// ---------------------------------------------------------------------- the fight page

class FightParty {
  constructor(section, form) {
    this.form = form;
    this.note = document.createElement("div");
    this.note.className = "calc-party";
    form.before(this.note);
    form.addEventListener("input", (event) => this.onEdit(event));
    form.addEventListener("change", (event) => this.onEdit(event));
    this.show();
  }

  rows() {
    // The form's combatant rows, each field's value by its name without the row's prefix.
    const rows = [];
    for (let row = 1; this.form.querySelector(`[name="c${row}_count"]`); row++) {
      const values = { row };
      for (const control of this.form.querySelectorAll(`[name^="c${row}_"]`)) {
        values[control.name.slice(`c${row}_`.length)] = control.value.trim();
      }
      rows.push(values);
    }
    return rows;
  }

  namedParty() {
    const inFight = (row) => row.side === "party" && row.name && Number(row.count) >= 1;
    return this.rows()
      .filter(inFight)
      .map((row) => ({
        name: row.name.slice(0, NAME_LENGTH),
        ...Object.fromEntries(STATS.map((stat) => [stat, row[stat] ?? ""])),
      }));
  }

  onEdit(event) {
    // An edit of a party row (or of a row's side) keeps the party's named rows as they now
    // are. An edit of an opponent, or a party without names (the form as built), leaves
    // what is kept alone: only "Forget" forgets it.
    const edited = /^c(\d+)_(.*)$/.exec(event.target.name ?? "");
    if (!edited) return;
    const [, row, field] = edited;
    const side = this.form.querySelector(`[name="c${row}_side"]`)?.value;
    const party = this.namedParty();
    if ((side === "party" || field === "side") && party.length) keep(party);
    this.show();
  }

  show(said = "") {
    const saved = savedParty();
    // Built anew only when what it says changes: a box's change event (its blur, as a tap
    // on "Forget" begins) would otherwise replace the button under the finger, and the tap
    // would be lost.
    const offersFill = !this.rows().some((row) => row.side === "party" && row.name);
    const shown = JSON.stringify([saved.map((member) => member.name), offersFill, said]);
    if (shown === this.shown) return;
    this.shown = shown;
    const line = document.createElement("p");
    if (!saved.length) {
      line.textContent = "Named party rows are kept on this device, for the attack calculator.";
      this.note.replaceChildren(line);
      return;
    }
    line.append(`Kept on this device: ${saved.map((member) => member.name).join(", ")}. `);
    const forget = button("Forget", () => {
      keep([]);
      this.show();
    });
    forget.classList.add("calc-party-forget");
    line.append(forget);
    this.note.replaceChildren(line);
    // A form without the party's names (as built, or another table's link) offers it.
    if (offersFill) {
      this.note.append(button("Fill in the party", () => this.fillParty(savedParty())));
    }
    if (said) {
      const told = document.createElement("p");
      told.className = "calc-party-said";
      told.textContent = said;
      this.note.append(told);
    }
  }

  fillParty(saved) {
    // The party first, one row a member, then the opponents' rows as they were; the rows
    // left over are emptied as the form has them when built (a count of 0).
    const rows = this.rows();
    const opponents = rows.filter((row) => row.side === "opponents" && Number(row.count) >= 1);
    const room = Math.max(rows.length - opponents.length, 0);
    const members = saved.slice(0, room).map((member) => ({ ...member, side: "party", count: "1" }));
    const laid = [...members, ...opponents];
    const values = {};
    rows.forEach(({ row }, index) => {
      const entry = laid[index] ?? { side: "opponents", count: "0" };
      for (const field of ["side", "count", "name", ...STATS]) {
        values[`c${row}_${field}`] = entry[field] || (field === "attacks" ? "1" : "");
      }
    });
    fill(this.form, values);
    const left = saved.length - members.length;
    this.show(left ? `${left} not filled in: the form has ${rows.length} rows.` : "");
  }
}

// ---------------------------------------------------------------------- the attack page

class AttackChoices {
  constructor(section, form) {
    this.form = form;
    const saved = savedParty();
    if (!saved.length) return;
    this.block = document.createElement("div");
    this.block.className = "calc-party";
    this.choices = [];
    this.block.append(
      this.group("Attacker", saved, (member) => ({ bonus: member.bonus, damage: member.damage }),
        () => this.openTarget()),
      this.group("Target", saved, (member) => ({ defense: member.defense })),
    );
    form.before(this.block);
    form.addEventListener("input", () => this.markChosen());
    form.addEventListener("change", () => this.markChosen());
  }

  openTarget() {
    // Who attacks is chosen: what is asked next is the target's state ("can Mira hit the
    // prone orc?"), so its situations unfold, each one tap away.
    const side = [...this.form.querySelectorAll('details.calc-side[data-side="target"]')]
      .find((fold) => !fold.hidden);
    if (!side) return;
    side.setAttribute("open", "");
    // Brought into view below the header when it is off the screen (a phone's), as a side
    // the reader opens is (calculators.mjs).
    if (side.getBoundingClientRect().top > innerHeight / 2) side.scrollIntoView({ block: "start" });
  }

  group(title, saved, valuesOf, then = () => {}) {
    // One row of choices: "Attacker: Mira Bram", each a tap that fills its fields.
    const group = document.createElement("div");
    group.className = "calc-party-group";
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", `The party as the ${title.toLowerCase()}`);
    const label = document.createElement("span");
    label.className = "calc-party-label";
    label.textContent = title;
    group.append(label);
    for (const member of saved) {
      const values = valuesOf(member);
      const choice = button(member.name, () => {
        fill(this.form, values);
        chosen.tapped = true;
        this.markChosen();
        then();
      });
      const chosen = { choice, values, tapped: false };
      this.choices.push(chosen);
      choice.setAttribute("aria-pressed", "false");
      choice.title = member.name; // the whole name, where a long one is cut short
      group.append(choice);
    }
    return group;
  }

  markChosen() {
    // A member tapped is shown pressed while the form holds its numbers: a number typed
    // over them, or another member tapped, releases it. (A form that merely happens to
    // hold a member's defense, as built, presses nothing.)
    for (const chosen of this.choices) {
      const holds = Object.entries(chosen.values).every(
        ([name, value]) => this.form.querySelector(`[name="${name}"]`)?.value.trim() === value,
      );
      chosen.tapped &&= holds;
      chosen.choice.setAttribute("aria-pressed", String(chosen.tapped));
    }
  }
}
