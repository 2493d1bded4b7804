// What a widget says beside its fields: a refusal's messages at the fields they are about,
// said again in the answer and beside the control the reader last changed, with a button
// that goes to the field; and an answer's notes, in a quieter voice.

import { endAboveDock, headerBottom } from "./calculator-dock.mjs";
import { named } from "./calculator-form.mjs";

/**
 * @typedef {import("./calculator-form.mjs").Control} Control
 * @typedef {import("../../../types/rules-core-web").Answer} Answer
 * @typedef {{control: Control, text: string}} Placed A refusal's message, beside its field.
 * @typedef {object} Refusal A refusal as placed on the page (showRefusal).
 * @property {boolean} atField Whether a field on screen holds one of its messages.
 * @property {Placed[]} placed The messages placed, in the refusal's order.
 * @property {string} reason What the status line says: the refusal's own message and any
 *   message no field on screen could hold.
 */

// A value typed is said (its answer, or why it is refused) once the typing pauses this
// long, or at once when the field is left: never a refusal of a value half typed ("1d" on
// the way to "1d10+4"), nor an answer at each key. The answer itself follows each key on
// screen; a refusal waits as long, marked as such ("still typing"), so its message does not
// come and go under the field between keys.
export const TYPING_PAUSE_MS = 1000;

/** @param {Element} section */
export function clearFieldErrors(section) {
  for (const slot of section.querySelectorAll(".calc-error")) slot.textContent = "";
  for (const note of section.querySelectorAll(".calc-refusal-near")) note.remove();
  for (const control of section.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
}

// An answer's notes (rules_core.web: field -> sentence): said beside their fields in a
// quieter voice than a refusal, with the answer, which they do not hold up (a fight's
// row left out until it is complete). clearFieldErrors takes them off with the messages.
// Returns the fields noted, in the notes' order.
/**
 * @param {Element} section
 * @param {HTMLFormElement} form
 * @param {Record<string, string>} [notes]
 * @returns {Control[]}
 */
export function showNotes(section, form, notes = {}) {
  /** @type {Control[]} */
  const noted = [];
  for (const [name, text] of Object.entries(notes)) {
    /** @type {Control | null} */
    const control = form.querySelector(named(name));
    const slot = shownSlot(section, control?.id && `${control.id}-error`);
    if (!slot) continue;
    const note = document.createElement("span");
    note.className = "calc-field-note";
    note.textContent = text; // the core's sentence: text, never markup
    slot.append(note);
    if (control) noted.push(control);
  }
  return noted;
}

// The element of that id in the section, where it is on screen (not in a hidden part).
/**
 * @param {Element} section
 * @param {string | null | undefined | false} id
 */
function shownSlot(section, id) {
  /** @type {"" | null | undefined | false | HTMLElement} */
  const slot = id && section.querySelector("#" + CSS.escape(id));
  return slot && !slot.closest("[hidden]") ? slot : null;
}

/**
 * @param {Element} section
 * @param {HTMLFormElement} form
 * @param {Pick<Answer, "errors" | "message">} refusal
 * @param {(name: string, control: Control | null) => string | null | undefined} slotId
 * @returns {Refusal}
 */
export function showRefusal(section, form, { errors = {}, message = "" }, slotId) {
  // Each message beside its field; slotId(name, control) names the element that holds it.
  // Returns whether a field holds one, the messages placed ({control, text}, in the
  // refusal's order), and the reason to show in the status line: the refusal's own
  // message and any message no field on screen could hold.
  /** @type {string[]} */
  const unplaced = [];
  /** @type {Placed[]} */
  const placed = [];
  for (const [name, text] of Object.entries(errors)) {
    /** @type {Control | null} */
    const control = form.querySelector(named(name));
    const slot = shownSlot(section, slotId(name, control));
    if (slot) {
      slot.textContent = text;
      control?.setAttribute("aria-invalid", "true");
      if (control) placed.push({ control, text });
    } else unplaced.push(text);
  }
  const atField = unplaced.length < Object.keys(errors).length;
  return { atField, placed, reason: [message, ...unplaced].filter(Boolean).join(" ") };
}

// A refused or failed answer: the figures shown are the last answer, and nothing computes
// until the inputs change. Its out-of-date mark says where to look: at the marked field, or,
// where no field is the cause, at the reason itself, which `labelled` (the element that
// bears the mark) holds as text in data-reason for the stylesheet to show. A question not
// yet complete (`incomplete`: a fight with no opponent yet) is no error: it says what it
// needs in place of the last answer's figures, which are not about it.
/**
 * @param {Element} element
 * @param {HTMLElement | null} labelled
 * @param {Pick<Refusal, "atField" | "reason">} refusal
 * @param {boolean} [incomplete]
 */
export function markRefused(element, labelled, { atField, reason }, incomplete = false) {
  const mark = incomplete ? "calc-result--incomplete"
    : atField ? "calc-result--refused" : "calc-result--unanswered";
  element.classList.add(mark);
  if ((incomplete || !atField) && labelled) labelled.dataset.reason = reason || "not answered";
}

/** @param {Element} element */
export function unmarkRefused(element) {
  element.classList.remove(
    "calc-result--refused",
    "calc-result--unanswered",
    "calc-result--incomplete",
    "calc-result--held",
  );
  for (const said of element.querySelectorAll(".calc-refusal")) said.remove();
}

// A refusal whose cause is a field may be far from where the reader looks: the field can
// be a screen above the box just ticked, on a phone. So it is said twice more, as text:
// in the answer (docked at the foot of a phone's screen), with the fix and a button that
// goes to the field; and beside the control the reader last changed, when that is not the
// field of the first message (under a fight's row even where the control holds a message
// of its own: a row lacking a value, where the first says the side it would give is missing).
// Returns what the answer says of it ("" where no field holds a message).
/**
 * @param {Element} section
 * @param {HTMLElement | null} headline
 * @param {Pick<Refusal, "placed">} refusal
 * @param {Control | undefined} edited
 */
export function sayRefusal(section, headline, { placed }, edited) {
  const [first] = placed ?? [];
  if (!first) return "";
  const fix = fixOf(first.control);
  let said = `Out of date: ${first.text}${fix ? " " + fix : ""}`;
  if (headline) {
    const refusal = document.createElement("div");
    refusal.className = "calc-refusal";
    const text = sentence("calc-refusal-text", said);
    if (placed.length > 1) {
      const more = document.createElement("span");
      text.append(" ", more);
      sayWhereMore(more, placed.slice(1).map(({ control }) => control), headline);
      said = text.textContent ?? said;
    }
    refusal.append(text, goButton(first.control));
    headline.append(refusal);
  }
  // A control with a message of its own keeps it in its slot: the note about the first goes
  // beside it only under its row or its tile.
  const ownMessage = placed.some(({ control }) => control === edited);
  const beside =
    edited?.isConnected &&
    first.control !== edited &&
    !edited.closest("[hidden]") &&
    besideOf(section, edited, !ownMessage);
  if (beside) {
    const note = document.createElement("span");
    note.className = "calc-refusal-near";
    note.append(sentence("calc-refusal-text", first.text), goButton(first.control));
    beside(note);
    // Messages placed above it may have pushed the control being typed in down, under a
    // phone's docked answer: the note is brought back above the answer, with the control.
    if (document.activeElement === edited) bringAboveDock(note, headline);
  }
  return said;
}

// The other marked fields, said by where they are from what the reader sees ("2 more marked
// below."): above the screen, below the docked answer, or in view. Said again as the page
// scrolls, for as long as the refusal is on the page.
/** @type {Map<HTMLElement, [Control[], HTMLElement | null]>} */
const whereSaid = new Map(); // the sentence's span -> [its fields, the dock]
let whereFrame = 0;

/**
 * @param {HTMLElement} span
 * @param {Control[]} controls
 * @param {HTMLElement | null} headline
 */
function sayWhereMore(span, controls, headline) {
  if (!whereSaid.size) addEventListener("scroll", sayWhereAgain, { passive: true });
  whereSaid.set(span, [controls, headline]);
  span.textContent = whereMore(controls, headline);
}

function sayWhereAgain() {
  cancelAnimationFrame(whereFrame);
  whereFrame = requestAnimationFrame(() => {
    for (const [span, [controls, headline]] of whereSaid) {
      if (!span.isConnected) whereSaid.delete(span);
      else span.textContent = whereMore(controls, headline);
    }
    if (!whereSaid.size) removeEventListener("scroll", sayWhereAgain);
  });
}

/**
 * @param {Control[]} controls
 * @param {HTMLElement | null} headline
 */
function whereMore(controls, headline) {
  const top = headerBottom();
  const end = endAboveDock(headline);
  const counts = { above: 0, below: 0, "in view": 0 };
  for (const control of controls) {
    const box = (control.closest(".calc-field") ?? control).getBoundingClientRect();
    counts[box.bottom <= top ? "above" : box.top >= end ? "below" : "in view"] += 1;
  }
  const where = Object.entries(counts).filter(([, count]) => count);
  if (where.length === 1) return `${controls.length} more marked ${where[0][0]}.`;
  return `${controls.length} more marked: ${where.map(([place, count]) => `${count} ${place}`).join(", ")}.`;
}

/**
 * @param {Element} element
 * @param {HTMLElement | null} headline
 */
function bringAboveDock(element, headline) {
  const end = endAboveDock(headline);
  const box = element.getBoundingClientRect();
  // Never so far that its top goes under the site's header.
  const room = box.top - headerBottom();
  if (box.bottom > end) scrollBy(0, Math.min(box.bottom - end + 8, room));
}

/**
 * @param {string} className
 * @param {string} text
 */
function sentence(className, text) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text; // the core's message: text, never markup
  return span;
}

// Where a note about another field goes beside an edited control: under a situation's
// tile, under the row of fields it is in (a fight's combatant: the whole row's width, not
// one narrow field's), or in the message slot of the control's own field.
/**
 * @param {Element} section
 * @param {Control} control
 * @param {boolean} intoSlot
 * @returns {((note: Element) => void) | null}
 */
function besideOf(section, control, intoSlot) {
  const tile = control.closest(".calc-choices > .calc-check");
  if (tile) return (note) => tile.after(note);
  const row = control.closest("fieldset.calc-group");
  if (row) return (note) => row.append(note);
  const slot = intoSlot && control.id && section.querySelector("#" + CSS.escape(`${control.id}-error`));
  return slot ? (note) => slot.append(note) : null;
}

/** @param {Control} control */
function labelOf(control) {
  const field = control.closest(".calc-field");
  const label = field?.querySelector(".calc-label") ?? control.closest("label") ?? control.labels?.[0];
  return label?.textContent.trim() || control.name;
}

// The fix in the form's own words, where the message may use the command line's (a
// choice's value, "melee", where the form shows its label, "Melee"). The button beside it
// names the field.
/** @param {Control} control */
function fixOf(control) {
  const label = labelOf(control);
  if (control instanceof HTMLSelectElement) {
    const others = [...control.options].filter((option) => option.value !== control.value && !option.hidden);
    if (!others.length || others.length > 4) return `Pick another ${label}.`;
    const names = others.map((option) => option.textContent.trim());
    const listed = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
    return `Pick ${listed}.`;
  }
  if (control.type === "checkbox") return `${control.checked ? "Untick" : "Tick"} ${label}.`;
  return "";
}

// A named row's fields (a fight's combatants) share their labels, so the button to one
// names its row too: "Go to Orc's defense" by the name typed in it, else by its legend,
// "Go to Combatant 3's defense" (a name left blank, refused, or shared with another row).
// Other fields are named by their label alone: "Go to Defense".
/** @param {Control} control */
function goToText(control) {
  const label = labelOf(control);
  /** @type {HTMLFieldSetElement | null} */
  const row = control.closest("fieldset.calc-group");
  const nameField = row && nameFieldOf(row);
  if (!row || !nameField) return `Go to ${label}`;
  /** @param {Element} group */
  const legendOf = (group) => group.querySelector(":scope > legend")?.textContent.trim() ?? "";
  /** @param {Element} group */
  const nameOf = (group) => nameFieldOf(group)?.value.trim() ?? "";
  const name = nameField.getAttribute("aria-invalid") === "true" ? "" : nameOf(row);
  const others = [.../** @type {HTMLFormElement} */ (row.form).querySelectorAll("fieldset.calc-group")].filter(
    (group) => group !== row && nameFieldOf(group),
  );
  const shared = others.some((group) => nameOf(group) === name || legendOf(group) === name);
  const who = name && !shared ? name : legendOf(row);
  return who ? `Go to ${who}'s ${label.toLowerCase()}` : `Go to ${label}`;
}

/**
 * @param {Element} group
 * @returns {HTMLInputElement | null}
 */
function nameFieldOf(group) {
  return group.querySelector("input[name$='_name']");
}

/** @param {Control} control */
function goButton(control) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "calc-refusal-go";
  button.textContent = goToText(control); // a typed name is text, never markup
  button.addEventListener("click", (event) => {
    event.stopPropagation(); // not the docked answer's own tap, which opens the details
    goToField(control);
  });
  return button;
}

// The field brought to the middle of the screen (above a phone's docked answer, below the
// header), unfolded if it was folded away, and focused: the next tap or key changes it.
/** @param {Control} control */
export function goToField(control) {
  /** @type {HTMLElement} */
  const field = control.closest(".calc-field") ?? control;
  for (
    let fold = /** @type {HTMLDetailsElement | null | undefined} */ (field.closest("details"));
    fold;
    fold = fold.parentElement?.closest("details")
  ) {
    fold.open = true;
  }
  // A situations field is its boxes: the first ticked one, else the first shown.
  /** @type {NodeListOf<HTMLInputElement>} */
  const situations = field.querySelectorAll("[data-situation]");
  const boxes = [...situations].filter((box) => !box.closest("[hidden]"));
  const target = control.type === "hidden" ? (boxes.find((box) => box.checked) ?? boxes[0] ?? field) : control;
  (target === control ? field : target).scrollIntoView({ block: "center" });
  target.focus({ preventScroll: true });
  field.classList.remove("calc-field--sought");
  void field.offsetWidth; // restart the highlight when asked twice
  field.classList.add("calc-field--sought");
}
